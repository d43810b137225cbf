// Whether a bearer token has the shape of a compact JWS (three base64url parts). The JWT
// authenticators (service accounts, OIDC) ask this before decoding: jose reports a token that is
// not a JWT by throwing, which costs about 5 µs a time, and every opaque token meant for a later
// authenticator (a webhook's, say) would otherwise pay that once per JWT authenticator.

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(token: string): boolean {
  return COMPACT_JWS.test(token);
}
