// Server-side conversions a client asks for with `as=` in Accept: `Table` (what `kubectl get`
// prints, per-type columns), `PartialObjectMetadata` and `PartialObjectMetadataList` (metadata-only
// informers). Either meta group spelling is accepted — `meta.platform.io` and upstream's
// `meta.k8s.io`, which kubectl and client-go send — and answered in the group and version asked for.
// A conversion wraps a serializer: the converted value is encoded as JSON or YAML like any other.

import { badRequest } from '../api/status.js';
import type { ApiObject } from '../api/types.js';
import type { TableColumn } from '../api/table-column.js';
import { served, value, type Body, type Encoder, type WatchEncoder, type WatchEvent } from './codec.js';

export const META_GROUPS = ['meta.platform.io', 'meta.k8s.io'] as const;
export const META_VERSIONS = ['v1', 'v1beta1'] as const;

export const As = {
  Table: 'Table',
  PartialObjectMetadata: 'PartialObjectMetadata',
  PartialObjectMetadataList: 'PartialObjectMetadataList',
} as const;
export type As = (typeof As)[keyof typeof As];

export interface Conversion {
  as: As;
  group: string;
  version: string;
}

/** What a Table row carries besides its cells (`?includeObject=`; upstream's default is Metadata). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw badRequest(`includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
}

/** The columns every table starts with. */
export const NAME_COLUMN: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Cannot be updated.',
  cell: (o) => o.metadata?.name ?? '',
};

/** The table of a type with no columns of its own. */
export const CREATED_AT_COLUMN: TableColumn = {
  name: 'Created At',
  type: 'date',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (o) => o.metadata?.creationTimestamp ?? '',
};

/** Name, then the type's own columns (Created At when it has none). */
export function tableColumns(own: readonly TableColumn[] | undefined): TableColumn[] {
  return [NAME_COLUMN, ...(own?.length ? own : [CREATED_AT_COLUMN])];
}

function columnDefinitions(columns: readonly TableColumn[]): Record<string, unknown>[] {
  return columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 }));
}

function partial(o: ApiObject, apiVersion: string): Record<string, unknown> {
  return { kind: As.PartialObjectMetadata, apiVersion, metadata: o.metadata };
}

function row(o: ApiObject, columns: readonly TableColumn[], include: IncludeObject, metaApiVersion: string): Record<string, unknown> {
  const r: Record<string, unknown> = { cells: columns.map((c) => c.cell(o) ?? null) };
  if (include === 'Object') r.object = o;
  else if (include === 'Metadata') r.object = partial(o, metaApiVersion);
  return r;
}

/** Objects of a body, in the served form, and the list metadata a table or list carries. */
function objectsOf(body: Body): { objects: ApiObject[]; listMeta: Record<string, unknown> | null } {
  switch (body.kind) {
    case 'list':
      return { objects: body.items.map((o) => served(o, body.transform) as ApiObject), listMeta: body.metadata };
    case 'stored':
      return { objects: [served(body.object, body.transform) as ApiObject], listMeta: null };
    case 'json':
      return { objects: [JSON.parse(body.text) as ApiObject], listMeta: null };
    case 'value': {
      const v = body.value as { items?: unknown; metadata?: Record<string, unknown> };
      if (Array.isArray(v?.items)) return { objects: v.items as ApiObject[], listMeta: v.metadata ?? {} };
      return { objects: [body.value as ApiObject], listMeta: null };
    }
  }
}

export interface ConversionSource {
  /** The type's own columns (Name and the Created At default are added); null when it has no table (review kinds). */
  columns: readonly TableColumn[] | undefined | null;
  includeObject: IncludeObject;
  /** A type without a compiled form (custom resources): JSON and YAML only, as upstream. */
  noProtobuf?: boolean;
}

/** The value `conv` makes of a response body; `columns` as `tableColumns` gives them. */
export function convert(body: Body, conv: Conversion, columns: readonly TableColumn[], includeObject: IncludeObject): unknown {
  const apiVersion = `${conv.group}/${conv.version}`;
  const { objects, listMeta } = objectsOf(body);
  if (conv.as === As.Table) {
    const metadata: Record<string, unknown> = listMeta ? { ...listMeta } : {};
    if (!listMeta && objects[0]?.metadata?.resourceVersion) metadata.resourceVersion = objects[0].metadata.resourceVersion;
    return { kind: 'Table', apiVersion, metadata, columnDefinitions: columnDefinitions(columns), rows: objects.map((o) => row(o, columns, includeObject, apiVersion)) };
  }
  if (conv.as === As.PartialObjectMetadataList) {
    return { kind: As.PartialObjectMetadataList, apiVersion, metadata: listMeta ?? {}, items: objects.map((o) => partial(o, apiVersion)) };
  }
  return partial(objects[0]!, apiVersion);
}

function mediaTypeOf(base: string, conv: Conversion): string {
  return `${base};as=${conv.as};g=${conv.group};v=${conv.version}`;
}

/** An encoder that converts, then serializes with `serializer`. */
export function convertingEncoder(serializer: Encoder, conv: Conversion, src: ConversionSource): Encoder {
  const columns = tableColumns(src.columns ?? undefined);
  return {
    mediaType: mediaTypeOf(serializer.mediaType, conv),
    encode: (body, pretty) => serializer.encode(value(convert(body, conv, columns, src.includeObject)), pretty),
  };
}

/** Watch events whose objects are converted (Table rows or PartialObjectMetadata), framed by `framing`. */
export function convertingWatchEncoder(conv: Conversion, src: ConversionSource, framing: WatchEncoder): WatchEncoder {
  const columns = tableColumns(src.columns ?? undefined);
  const apiVersion = `${conv.group}/${conv.version}`;
  return {
    mediaType: mediaTypeOf(framing.mediaType, conv),
    frame: framing.frame,
    event(ev: WatchEvent): string | Buffer {
      switch (ev.type) {
        case 'ERROR':
          return framing.frame('ERROR', ev.status);
        case 'BOOKMARK':
          // A bookmark carries a resourceVersion, not an object: an empty table, or bare metadata.
          return framing.frame(
            'BOOKMARK',
            conv.as === As.Table
              ? { kind: 'Table', apiVersion, metadata: { resourceVersion: ev.metadata.resourceVersion }, columnDefinitions: [], rows: [] }
              : { kind: As.PartialObjectMetadata, apiVersion, metadata: ev.metadata },
          );
        default:
          return framing.frame(ev.type, convert({ kind: 'stored', object: ev.object, transform: ev.transform }, conv, columns, src.includeObject));
      }
    },
  };
}
