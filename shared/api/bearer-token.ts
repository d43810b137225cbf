// The bearer token of an `Authorization` header, by upstream's rule (k8s.io/apiserver
// pkg/authentication/request/bearertoken): the header, trimmed of surrounding white space, is
// split at single spaces; the first part must be `bearer` in any case and the second part is the
// token. `Bearer  tok` (two spaces), `Bearer\ttok` or `Bearer ` carry no token at all: the
// request goes on as if it had none (anonymous, or 401 when anonymous access is off), never as
// the user of a token someone mangled. Anything after a second space is ignored, as upstream does.

// Go's strings.TrimSpace (unicode.IsSpace) for the characters a Node header value can hold.
const SPACE = /^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/g;

/** The token, or undefined when the header carries no usable bearer token. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const auth = authorization.replace(SPACE, '');
  const sp = auth.indexOf(' ');
  if (sp < 0 || auth.slice(0, sp).toLowerCase() !== 'bearer') return undefined;
  const rest = auth.slice(sp + 1);
  const end = rest.indexOf(' ');
  const token = end < 0 ? rest : rest.slice(0, end);
  return token === '' ? undefined : token;
}
