// OpenAPI v2 (swagger 2.0) documents in protobuf, as kube-apiserver serves `/openapi/v2` to
// clients that ask for it (kubectl's explain and client-side validation, client-go's
// OpenAPISchema): the JSON document converted to an `openapi.v2.Document` (openapi-v2-schema.ts)
// and back. Both directions walk the message types by reflection; openapi-v2-shapes.ts says where
// the JSON and the messages part ways. A value the schema cannot hold (a key no message has, a
// parameter of an unknown `in`, a string where a number belongs) is left out, not an error.
// Scalars are written when the JSON has them, zero values too, so a decoded document has exactly
// the keys the JSON had.

import protobuf from 'protobufjs';
import YAML from 'yaml';
import { openApiV2DocumentType } from './openapi-v2-schema.js';
import { fieldNameOf, isExtension, isObject, jsonKeyOf, MAP_FIELD, mapEntryType, MIXED_ENTRIES, ONEOF_MEMBER, setMember, VENDOR_EXTENSION, type JsonObject } from './openapi-v2-shapes.js';

// int64 fields as JS numbers (lengths and counts), as shared/proto/wire.ts reads them.
protobuf.util.Long = undefined as unknown as typeof protobuf.util.Long;
protobuf.configure();

/** The media type kube-openapi answers with (the `@` spelling is what clients ask for). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** Both spellings clients send in Accept. */
export const OPENAPI_V2_PROTOBUF_ACCEPTED = ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', OPENAPI_V2_PROTOBUF] as const;

type Message = Record<string, unknown>;

/** YAML as Go's YAML 1.1 readers take it back (`"yes"` stays a string); each distinct value once. */
class YamlValues {
  private readonly seen = new Map<string, string>();
  of(v: unknown): string {
    const key = JSON.stringify(v) ?? 'null';
    let text = this.seen.get(key);
    if (text === undefined) this.seen.set(key, (text = YAML.stringify(v ?? null, { version: '1.1', lineWidth: 0 })));
    return text;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON → message

class Encoder {
  private readonly yaml = new YamlValues();

  message(v: unknown, type: protobuf.Type): Message | undefined {
    switch (type.name) {
      case 'Any':
        return { yaml: this.yaml.of(v) };
      case 'TypeItem':
        return { value: (Array.isArray(v) ? v : [v]).filter((t) => typeof t === 'string') };
      case 'StringArray':
        return Array.isArray(v) ? { value: v.filter((t) => typeof t === 'string') } : undefined;
      case 'ItemsItem':
        return { schema: (Array.isArray(v) ? v : [v]).filter(isObject).map((s) => this.message(s, type.fields.schema!.resolvedType as protobuf.Type)) };
      case 'AdditionalPropertiesItem':
        if (typeof v === 'boolean') return { boolean: v };
        return isObject(v) ? { schema: this.message(v, type.fields.schema!.resolvedType as protobuf.Type) } : undefined;
    }
    if (!isObject(v)) return undefined;
    const choose = ONEOF_MEMBER[type.name];
    if (choose) return this.choice(v, type, choose(v));
    const entry = mapEntryType(type);
    if (entry) return { [MAP_FIELD]: this.entries(Object.entries(v), entry) };
    return this.fields(v, type);
  }

  private choice(v: JsonObject, type: protobuf.Type, member: string | undefined): Message | undefined {
    const field = member ? type.fields[member] : undefined;
    const value = field ? this.message(v, field.resolvedType as protobuf.Type) : undefined;
    return value ? { [member!]: value } : undefined;
  }

  /** Named* pairs; a NamedString's value is a plain string. */
  private entries(pairs: [string, unknown][], entry: protobuf.Type): Message[] {
    const valueType = entry.fields.value!.resolvedType as protobuf.Type | null;
    const out: Message[] = [];
    for (const [name, v] of pairs) {
      const value = valueType ? this.message(v, valueType) : typeof v === 'string' ? v : undefined;
      if (value !== undefined) out.push({ name, value });
    }
    return out;
  }

  private fields(v: JsonObject, type: protobuf.Type): Message {
    const out: Message = {};
    const extensions: [string, unknown][] = [];
    const mixed = MIXED_ENTRIES[type.name];
    const named: [string, unknown][] = [];
    for (const [key, value] of Object.entries(v)) {
      if (isExtension(key) && type.fields[VENDOR_EXTENSION]) extensions.push([key, value]);
      else if (mixed) named.push([key, value]);
      else {
        const field = type.fields[fieldNameOf(key)];
        const converted = field && field.name !== VENDOR_EXTENSION ? this.field(value, field) : undefined;
        if (converted !== undefined) out[field!.name] = converted;
      }
    }
    if (mixed) out[mixed] = this.entries(named, type.fields[mixed]!.resolvedType as protobuf.Type);
    if (extensions.length) out[VENDOR_EXTENSION] = this.entries(extensions, type.fields[VENDOR_EXTENSION]!.resolvedType as protobuf.Type);
    return out;
  }

  private field(v: unknown, field: protobuf.Field): unknown {
    const type = field.resolvedType as protobuf.Type | null;
    const one = (x: unknown): unknown => (type ? this.message(x, type) : scalar(x, field.type));
    if (!field.repeated) return one(v);
    return Array.isArray(v) ? v.map(one).filter((x) => x !== undefined) : undefined;
  }
}

/** A JSON scalar of the field's proto type, or undefined. */
function scalar(v: unknown, protoType: string): unknown {
  switch (protoType) {
    case 'string':
      return typeof v === 'string' ? v : undefined;
    case 'bool':
      return typeof v === 'boolean' ? v : undefined;
    case 'int64':
      return Number.isSafeInteger(v) ? v : undefined;
    default:
      return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// message → JSON

const has = (m: Message, name: string): boolean => Object.prototype.hasOwnProperty.call(m, name) && m[name] !== null && m[name] !== undefined;

class Decoder {
  private readonly yaml = new Map<string, unknown>();

  value(m: Message, type: protobuf.Type): unknown {
    switch (type.name) {
      case 'Any':
        return this.parsed(String(m.yaml ?? ''));
      case 'TypeItem':
      case 'StringArray': {
        const value = (m.value ?? []) as string[];
        return type.name === 'TypeItem' && value.length === 1 ? value[0] : [...value];
      }
      case 'ItemsItem': {
        const schemas = ((m.schema ?? []) as Message[]).map((s) => this.value(s, type.fields.schema!.resolvedType as protobuf.Type));
        return schemas.length === 1 ? schemas[0] : schemas;
      }
    }
    if (type.oneofsArray.length) {
      const member = setMember(m, type);
      return member ? this.field(m[member], type.fields[member]!) : undefined;
    }
    const entry = mapEntryType(type);
    if (entry) return this.entries((m[MAP_FIELD] ?? []) as Message[], entry);
    return this.fields(m, type);
  }

  private parsed(text: string): unknown {
    if (!this.yaml.has(text)) this.yaml.set(text, YAML.parse(text, { version: '1.1' }));
    // Callers may keep and change what they get: each gets its own copy of a shared value.
    return structuredClone(this.yaml.get(text));
  }

  private entries(pairs: Message[], entry: protobuf.Type): JsonObject {
    const valueField = entry.fields.value!;
    const out: JsonObject = {};
    for (const pair of pairs) out[String(pair.name)] = has(pair, 'value') ? this.field(pair.value, valueField) : valueField.resolvedType ? {} : '';
    return out;
  }

  private fields(m: Message, type: protobuf.Type): JsonObject {
    const out: JsonObject = {};
    const mixed = MIXED_ENTRIES[type.name];
    for (const field of type.fieldsArray) {
      if (field.name === VENDOR_EXTENSION || !has(m, field.name)) continue;
      const v = m[field.name];
      if (field.name === mixed) Object.assign(out, this.entries(v as Message[], field.resolvedType as protobuf.Type));
      else if (!field.repeated) out[jsonKeyOf(field.name)] = this.field(v, field);
      else if ((v as unknown[]).length) out[jsonKeyOf(field.name)] = (v as unknown[]).map((x) => this.field(x, field));
    }
    if (has(m, VENDOR_EXTENSION)) Object.assign(out, this.entries(m[VENDOR_EXTENSION] as Message[], type.fields[VENDOR_EXTENSION]!.resolvedType as protobuf.Type));
    return out;
  }

  private field(v: unknown, field: protobuf.Field): unknown {
    const type = field.resolvedType as protobuf.Type | null;
    return type ? this.value(v as Message, type) : v;
  }
}

// ---------------------------------------------------------------------------------------------

/** The document (swagger 2.0 JSON as parsed) as `openapi.v2.Document` bytes. */
export function encodeOpenApiV2(doc: JsonObject): Buffer {
  const type = openApiV2DocumentType();
  const message = new Encoder().message(doc, type) ?? {};
  return Buffer.from(type.encode(message).finish());
}

/** `openapi.v2.Document` bytes back to the JSON document. */
export function decodeOpenApiV2(bytes: Uint8Array): JsonObject {
  const type = openApiV2DocumentType();
  return new Decoder().value(type.decode(bytes) as unknown as Message, type) as JsonObject;
}
