// The protobuf schema of an OpenAPI v2 (swagger 2.0) document as kubectl and client-go read it from
// `/openapi/v2` (`Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): package
// `openapi.v2`, the message and field numbers of gnostic's OpenAPIv2.proto, so the bytes decode
// with the clients' generated code. Written here in proto3 syntax and parsed by protobufjs at
// first use; field names keep their snake_case spelling (the converters map JSON keys onto them).
//
// How the document's JSON maps onto it:
// - an object keyed by names (definitions, properties, headers, scopes, …) is a message with one
//   repeated `additional_properties` of Named* pairs, in the JSON's order;
// - a value that can take several shapes is a message with a `oneof` (a parameter by its `in`, a
//   response or a reference, a schema or a file schema, additionalProperties as schema or boolean);
// - `x-*` keys are `vendor_extension` pairs whose value is an `Any` holding the value as YAML;
// - `type` is a list of names and `items` a list of schemas (either spelling of JSON fits).

import protobuf from 'protobufjs';

/**
 * The keywords of a primitive value (a non-body parameter, a header, array items), numbered in
 * this order from `first` in every message that has them.
 */
const PRIMITIVE_KEYWORDS = [
  'string type',
  'string format',
  'PrimitivesItems items',
  'string collection_format',
  'Any default',
  'double maximum',
  'bool exclusive_maximum',
  'double minimum',
  'bool exclusive_minimum',
  'int64 max_length',
  'int64 min_length',
  'string pattern',
  'int64 max_items',
  'int64 min_items',
  'bool unique_items',
  'repeated Any enum',
  'double multiple_of',
];

function primitive(first: number): string {
  return PRIMITIVE_KEYWORDS.map((field, i) => `  ${field} = ${first + i};`).join('\n');
}

const OPENAPI_V2_PROTO = `
syntax = "proto3";
package openapi.v2;

import "google/protobuf/any.proto";

// --- documents, paths and operations ---

message Document {
  string swagger = 1;
  Info info = 2;
  string host = 3;
  string base_path = 4;
  repeated string schemes = 5;
  repeated string consumes = 6;
  repeated string produces = 7;
  Paths paths = 8;
  Definitions definitions = 9;
  ParameterDefinitions parameters = 10;
  ResponseDefinitions responses = 11;
  repeated SecurityRequirement security = 12;
  SecurityDefinitions security_definitions = 13;
  repeated Tag tags = 14;
  ExternalDocs external_docs = 15;
  repeated NamedAny vendor_extension = 16;
}

message Info {
  string title = 1;
  string version = 2;
  string description = 3;
  string terms_of_service = 4;
  Contact contact = 5;
  License license = 6;
  repeated NamedAny vendor_extension = 7;
}

message Contact {
  string name = 1;
  string url = 2;
  string email = 3;
  repeated NamedAny vendor_extension = 4;
}

message License {
  string name = 1;
  string url = 2;
  repeated NamedAny vendor_extension = 3;
}

message Tag {
  string name = 1;
  string description = 2;
  ExternalDocs external_docs = 3;
  repeated NamedAny vendor_extension = 4;
}

message ExternalDocs {
  string description = 1;
  string url = 2;
  repeated NamedAny vendor_extension = 3;
}

// Path entries and the path's own extensions sit side by side in JSON.
message Paths {
  repeated NamedAny vendor_extension = 1;
  repeated NamedPathItem path = 2;
}

message PathItem {
  string _ref = 1;
  Operation get = 2;
  Operation put = 3;
  Operation post = 4;
  Operation delete = 5;
  Operation options = 6;
  Operation head = 7;
  Operation patch = 8;
  repeated ParametersItem parameters = 9;
  repeated NamedAny vendor_extension = 10;
}

message Operation {
  repeated string tags = 1;
  string summary = 2;
  string description = 3;
  ExternalDocs external_docs = 4;
  string operation_id = 5;
  repeated string produces = 6;
  repeated string consumes = 7;
  repeated ParametersItem parameters = 8;
  Responses responses = 9;
  repeated string schemes = 10;
  bool deprecated = 11;
  repeated SecurityRequirement security = 12;
  repeated NamedAny vendor_extension = 13;
}

// Status codes ("200", "default") and extensions side by side, as Paths.
message Responses {
  repeated NamedResponseValue response_code = 1;
  repeated NamedAny vendor_extension = 2;
}

message ResponseValue {
  oneof oneof {
    Response response = 1;
    JsonReference json_reference = 2;
  }
}

message Response {
  string description = 1;
  SchemaItem schema = 2;
  Headers headers = 3;
  Examples examples = 4;
  repeated NamedAny vendor_extension = 5;
}

message JsonReference {
  string _ref = 1;
  string description = 2;
}

// --- parameters: a reference, a body, or one of four primitive kinds by where it travels ---

message ParametersItem {
  oneof oneof {
    Parameter parameter = 1;
    JsonReference json_reference = 2;
  }
}

message Parameter {
  oneof oneof {
    BodyParameter body_parameter = 1;
    NonBodyParameter non_body_parameter = 2;
  }
}

message NonBodyParameter {
  oneof oneof {
    HeaderParameterSubSchema header_parameter_sub_schema = 1;
    FormDataParameterSubSchema form_data_parameter_sub_schema = 2;
    QueryParameterSubSchema query_parameter_sub_schema = 3;
    PathParameterSubSchema path_parameter_sub_schema = 4;
  }
}

message BodyParameter {
  string description = 1;
  string name = 2;
  string in = 3;
  bool required = 4;
  Schema schema = 5;
  repeated NamedAny vendor_extension = 6;
}

message HeaderParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
${primitive(5)}
  repeated NamedAny vendor_extension = 22;
}

// formData and query parameters also carry allow_empty_value (5), which shifts the rest by one.
message FormDataParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
  bool allow_empty_value = 5;
${primitive(6)}
  repeated NamedAny vendor_extension = 23;
}

message QueryParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
  bool allow_empty_value = 5;
${primitive(6)}
  repeated NamedAny vendor_extension = 23;
}

message PathParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
${primitive(5)}
  repeated NamedAny vendor_extension = 22;
}

// The items of an array parameter or header: the primitive keywords, nested.
message PrimitivesItems {
${primitive(1)}
  repeated NamedAny vendor_extension = 18;
}

message Header {
${primitive(1)}
  string description = 18;
  repeated NamedAny vendor_extension = 19;
}

// --- schemas ---

message Schema {
  string _ref = 1;
  string format = 2;
  string title = 3;
  string description = 4;
  Any default = 5;
  double multiple_of = 6;
  double maximum = 7;
  bool exclusive_maximum = 8;
  double minimum = 9;
  bool exclusive_minimum = 10;
  int64 max_length = 11;
  int64 min_length = 12;
  string pattern = 13;
  int64 max_items = 14;
  int64 min_items = 15;
  bool unique_items = 16;
  int64 max_properties = 17;
  int64 min_properties = 18;
  repeated string required = 19;
  repeated Any enum = 20;
  AdditionalPropertiesItem additional_properties = 21;
  TypeItem type = 22;
  ItemsItem items = 23;
  repeated Schema all_of = 24;
  Properties properties = 25;
  string discriminator = 26;
  bool read_only = 27;
  Xml xml = 28;
  ExternalDocs external_docs = 29;
  Any example = 30;
  repeated NamedAny vendor_extension = 31;
}

message SchemaItem {
  oneof oneof {
    Schema schema = 1;
    FileSchema file_schema = 2;
  }
}

message FileSchema {
  string format = 1;
  string title = 2;
  string description = 3;
  Any default = 4;
  repeated string required = 5;
  string type = 6;
  bool read_only = 7;
  ExternalDocs external_docs = 8;
  Any example = 9;
  repeated NamedAny vendor_extension = 10;
}

message AdditionalPropertiesItem {
  oneof oneof {
    Schema schema = 1;
    bool boolean = 2;
  }
}

message TypeItem {
  repeated string value = 1;
}

message ItemsItem {
  repeated Schema schema = 1;
}

message Xml {
  string name = 1;
  string namespace = 2;
  string prefix = 3;
  bool attribute = 4;
  bool wrapped = 5;
  repeated NamedAny vendor_extension = 6;
}

// --- security ---

message SecurityDefinitionsItem {
  oneof oneof {
    BasicAuthenticationSecurity basic_authentication_security = 1;
    ApiKeySecurity api_key_security = 2;
    Oauth2ImplicitSecurity oauth2_implicit_security = 3;
    Oauth2PasswordSecurity oauth2_password_security = 4;
    Oauth2ApplicationSecurity oauth2_application_security = 5;
    Oauth2AccessCodeSecurity oauth2_access_code_security = 6;
  }
}

message BasicAuthenticationSecurity {
  string type = 1;
  string description = 2;
  repeated NamedAny vendor_extension = 3;
}

message ApiKeySecurity {
  string type = 1;
  string name = 2;
  string in = 3;
  string description = 4;
  repeated NamedAny vendor_extension = 5;
}

message Oauth2ImplicitSecurity {
  string type = 1;
  string flow = 2;
  Oauth2Scopes scopes = 3;
  string authorization_url = 4;
  string description = 5;
  repeated NamedAny vendor_extension = 6;
}

message Oauth2PasswordSecurity {
  string type = 1;
  string flow = 2;
  Oauth2Scopes scopes = 3;
  string token_url = 4;
  string description = 5;
  repeated NamedAny vendor_extension = 6;
}

message Oauth2ApplicationSecurity {
  string type = 1;
  string flow = 2;
  Oauth2Scopes scopes = 3;
  string token_url = 4;
  string description = 5;
  repeated NamedAny vendor_extension = 6;
}

message Oauth2AccessCodeSecurity {
  string type = 1;
  string flow = 2;
  Oauth2Scopes scopes = 3;
  string authorization_url = 4;
  string token_url = 5;
  string description = 6;
  repeated NamedAny vendor_extension = 7;
}

// --- free values and the name → value maps ---

// A value the typed messages do not model (defaults, examples, enum members, extensions), as YAML.
message Any {
  google.protobuf.Any value = 1;
  string yaml = 2;
}

message StringArray {
  repeated string value = 1;
}

message NamedAny { string name = 1; Any value = 2; }
message NamedHeader { string name = 1; Header value = 2; }
message NamedParameter { string name = 1; Parameter value = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message NamedResponse { string name = 1; Response value = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message NamedSchema { string name = 1; Schema value = 2; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message NamedString { string name = 1; string value = 2; }
message NamedStringArray { string name = 1; StringArray value = 2; }

message Definitions { repeated NamedSchema additional_properties = 1; }
message Properties { repeated NamedSchema additional_properties = 1; }
message ParameterDefinitions { repeated NamedParameter additional_properties = 1; }
message ResponseDefinitions { repeated NamedResponse additional_properties = 1; }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message Oauth2Scopes { repeated NamedString additional_properties = 1; }
message Headers { repeated NamedHeader additional_properties = 1; }
message Examples { repeated NamedAny additional_properties = 1; }
message Default { repeated NamedAny additional_properties = 1; }
message VendorExtension { repeated NamedAny additional_properties = 1; }
`;

let documentType: protobuf.Type | undefined;

/** The `openapi.v2.Document` message type (the schema is parsed on first use). */
export function openApiV2DocumentType(): protobuf.Type {
  if (documentType) return documentType;
  const root = new protobuf.Root();
  root.addJSON(protobuf.common.get('google/protobuf/any.proto')!.nested!);
  protobuf.parse(OPENAPI_V2_PROTO, root, { keepCase: true });
  root.resolveAll();
  documentType = root.lookupType('openapi.v2.Document');
  return documentType;
}
