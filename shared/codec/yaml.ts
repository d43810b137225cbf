// YAML responses (`Accept: application/yaml`), encoded from the plain value (a Status with its
// empty fields left out, as upstream's JSON-then-YAML encoding leaves them).

import YAML from 'yaml';
import { bodyValue, type Body, type Encoder } from './codec.js';
import { isStatusValue, upstreamStatus } from './status-json.js';

export const yamlEncoder: Encoder = {
  mediaType: 'application/yaml',
  encode(body: Body): string {
    const v = bodyValue(body);
    return YAML.stringify(isStatusValue(v) ? upstreamStatus(v) : v);
  },
};
