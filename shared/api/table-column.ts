// One column of a type's Table (kubectl get's columns): declared by the type (shared/registry),
// filled in by the Table codec (shared/codec/convert.ts).

import type { ApiObject } from './types.js';

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description?: string;
  /** 0 = always shown, 1 = shown with `-o wide`. */
  priority?: number;
  /** Cell value for one object. */
  cell(obj: ApiObject): unknown;
}
