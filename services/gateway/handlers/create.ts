// POST of an object: decode it as the addressed type, then the generic store's create.

import { badRequest } from '../../../shared/api/status.js';
import { parseWriteOptions } from '../../../shared/api/query.js';
import { value } from '../../../shared/codec/index.js';
import { decodeObject } from './decode.js';
import { writeRequest, type Handler } from './context.js';

export const create: Handler = async (ctx, { registry, store }) => {
  const write = parseWriteOptions(ctx.query);
  if (!ctx.body || ctx.body.length === 0) throw badRequest('the request body is empty');
  const obj = decodeObject(registry, ctx.target, ctx.body, ctx.contentType ?? 'application/json', write.fieldValidation, ctx.warnings, ctx.decoded);
  const created = await store.create(writeRequest(ctx, write.dryRun, obj.metadata.name ?? ''), obj);
  return { code: 201, body: value(created) };
};
