// YAML responses (`Accept: application/yaml`), encoded from the plain value.

import YAML from 'yaml';
import { bodyValue, type Body, type Encoder } from './codec.js';

export const yamlEncoder: Encoder = {
  mediaType: 'application/yaml',
  encode(body: Body): string {
    return YAML.stringify(bodyValue(body));
  },
};
