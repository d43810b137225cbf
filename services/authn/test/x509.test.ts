import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createX509Authenticator, parseCABundle, verifyChain, VERIFIED_CHAIN_TTL_MS, X509_ERRORS } from '../authenticators/x509.js';
import type { AuthnResult } from '../types.js';
import { clientCert, DAY, EKU, HOUR, intermediateCA, mint, rootCA, tamper, type Minted } from './x509-fixtures.js';

describe('x509 authenticator', () => {
  let ca: Minted;
  let ca2: Minted;
  let other: Minted;
  let bundle: string;
  // Roots with constraints of their own; trusted only in the table test.
  let expiredRoot: Minted;
  let rootPathLen0: Minted;
  let rootPathLen1: Minted;
  const certs: Record<string, string[]> = {};

  before(async () => {
    ca = await rootCA('platform-client-ca');
    ca2 = await rootCA('second-client-ca');
    other = await rootCA('someone-elses-ca');
    bundle = `# client CAs\n${ca.pem}\n${ca2.pem}`;

    const inter = await intermediateCA('client-intermediate', ca);
    const inter2 = await intermediateCA('client-intermediate-2', inter);
    const expiredInter = await intermediateCA('expired-intermediate', ca, { notBefore: new Date(Date.now() - 3 * DAY), notAfter: new Date(Date.now() - DAY) });
    const notCA = await clientCert('plain-leaf', ca);
    // Without a key usage extension only basicConstraints says it must not sign certificates.
    const notCANoKeyUsage = await clientCert('plain-leaf-no-ku', ca, [], { keyUsage: null });
    const serverOnlyInter = await intermediateCA('server-only-intermediate', ca, { eku: [EKU.serverAuth] });
    const pathLen0 = await intermediateCA('pathlen-0-intermediate', ca, { pathLength: 0 });
    const below0 = await intermediateCA('below-pathlen-0', pathLen0);
    rootPathLen0 = await rootCA('root-pathlen-0', { pathLength: 0 });
    rootPathLen1 = await rootCA('root-pathlen-1', { pathLength: 1 });
    const oneBelow1 = await intermediateCA('one-below-pathlen-1', rootPathLen1);
    const twoBelow1 = await intermediateCA('two-below-pathlen-1', oneBelow1);
    // 256 takes two bytes in DER (01 00): a reader of the last byte only would see 0.
    const pathLen256 = await intermediateCA('pathlen-256', ca, { pathLength: 256 });
    const below256 = await intermediateCA('below-pathlen-256', pathLen256);
    const underRootPathLen0 = await intermediateCA('under-root-pathlen-0', rootPathLen0);
    expiredRoot = await rootCA('expired-root', { notBefore: new Date(Date.now() - 3 * DAY), notAfter: new Date(Date.now() - DAY) });
    // Same name as the trusted CA, its own key: only the signature tells them apart.
    const forgedCA = await rootCA('platform-client-ca');

    const leaf = async (cn: string, issuer: Minted, orgs: string[] = [], more = {}) => (await clientCert(cn, issuer, orgs, more)).pem;
    const jane = await leaf('jane', ca, ['developers', 'qa']);
    Object.assign(certs, {
      valid: [jane],
      viaIntermediate: [await leaf('ivan', inter, ['interns']), inter.pem],
      viaIntermediateWithRoot: [await leaf('ivan', inter, ['interns']), inter.pem, ca.pem],
      twoIntermediatesOutOfOrder: [await leaf('tess', inter2), inter.pem, inter2.pem],
      intermediateMissing: [await leaf('ivan', inter)],
      expired: [await leaf('old', ca, [], { notBefore: new Date(Date.now() - 3 * DAY), notAfter: new Date(Date.now() - DAY) })],
      notYetValid: [await leaf('early', ca, [], { notBefore: new Date(Date.now() + HOUR), notAfter: new Date(Date.now() + DAY) })],
      expiredIntermediate: [await leaf('ivan', expiredInter), expiredInter.pem],
      otherCA: [await leaf('mallory', other, ['system:masters'])],
      otherCAWithItsRoot: [await leaf('mallory', other, ['system:masters']), other.pem],
      selfSigned: [(await mint({ subject: [{ CN: ['mallory'] }, { O: ['system:masters'] }] })).pem],
      forged: [await leaf('mallory', forgedCA, ['system:masters'], { authorityKeyId: false })],
      forgedWithFakeRoot: [await leaf('mallory', forgedCA, ['system:masters'], { authorityKeyId: false }), forgedCA.pem],
      tampered: [tamper(jane, 'jane', 'joan')],
      tamperedGroup: [tamper(jane, 'developers', 'superusers')],
      secondCA: [await leaf('sam', ca2, ['ops'])],
      serverOnly: [await leaf('web', ca, [], { eku: [EKU.serverAuth] })],
      noEku: [await leaf('legacy', ca, [], { eku: null })],
      anyEku: [await leaf('any', ca, [], { eku: [EKU.any] })],
      clientAndServer: [await leaf('both', ca, [], { eku: [EKU.serverAuth, EKU.clientAuth] })],
      issuedByNonCA: [await leaf('sneaky', notCA), notCA.pem],
      issuedByNonCANoKeyUsage: [await leaf('sneaky', notCANoKeyUsage), notCANoKeyUsage.pem],
      intermediateServerOnly: [await leaf('ivan', serverOnlyInter), serverOnlyInter.pem],
      pathLenIntermediate: [await leaf('deep', below0), below0.pem, pathLen0.pem],
      pathLenRoot: [await leaf('deep', underRootPathLen0), underRootPathLen0.pem],
      // Path length 0 still lets a CA issue leaves.
      leafUnderPathLen0: [await leaf('shallow', pathLen0), pathLen0.pem],
      leafUnderRootPathLen0: [await leaf('shallow', rootPathLen0)],
      oneUnderRootPathLen1: [await leaf('one', oneBelow1), oneBelow1.pem],
      twoUnderRootPathLen1: [await leaf('two', twoBelow1), twoBelow1.pem, oneBelow1.pem],
      underPathLen256: [await leaf('wide', below256), below256.pem, pathLen256.pem],
      expiredRoot: [await leaf('late', expiredRoot)],
      emptyCN: [await leaf('', ca, ['developers'])],
      noCN: [(await mint({ subject: [{ O: ['developers'] }], issuer: ca })).pem],
      manyGroups: [await leaf('gina', ca, ['g1', 'system:masters', 'g,with,commas', 'g1'])],
      injectedName: [await leaf('jane\nO=system:masters', ca)],
      multiCN: [(await mint({ subject: [{ CN: ['first'] }, { O: ['g'] }, { CN: ['second'] }], issuer: ca })).pem],
      unicodeName: [await leaf('jürgen-日本', ca, ['grüppe'])],
      garbage: ['-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n'],
      notPem: ['hello'],
      garbageIntermediate: [jane, 'not a certificate'],
      caItself: [ca.pem],
    });
    // Beyond the bound on presented certificates.
    certs.tooMany = [jane, ...Array.from({ length: 12 }, () => inter.pem)];
  });

  const ok = (username: string, groups: string[] = []): AuthnResult => ({ kind: 'ok', user: { username, groups } });
  const fail = (error: string): AuthnResult => ({ kind: 'fail', error });

  test('x509 - each presented chain gives the user, or the reason it is refused', async () => {
    const auth = createX509Authenticator(`${bundle}\n${expiredRoot.pem}\n${rootPathLen0.pem}\n${rootPathLen1.pem}`);
    const cases: Array<[name: string, want: AuthnResult]> = [
      ['valid', ok('jane', ['developers', 'qa'])],
      ['viaIntermediate', ok('ivan', ['interns'])],
      ['viaIntermediateWithRoot', ok('ivan', ['interns'])],
      ['twoIntermediatesOutOfOrder', ok('tess')],
      ['intermediateMissing', fail(X509_ERRORS.unknownAuthority)],
      ['expired', fail(X509_ERRORS.expired)],
      ['notYetValid', fail(X509_ERRORS.expired)],
      ['expiredIntermediate', fail(X509_ERRORS.expired)],
      ['otherCA', fail(X509_ERRORS.unknownAuthority)],
      ['otherCAWithItsRoot', fail(X509_ERRORS.unknownAuthority)],
      ['selfSigned', fail(X509_ERRORS.unknownAuthority)],
      ['forged', fail(X509_ERRORS.unknownAuthority)],
      ['forgedWithFakeRoot', fail(X509_ERRORS.unknownAuthority)],
      ['tampered', fail(X509_ERRORS.unknownAuthority)],
      ['tamperedGroup', fail(X509_ERRORS.unknownAuthority)],
      ['secondCA', ok('sam', ['ops'])],
      ['serverOnly', fail(X509_ERRORS.usage)],
      ['noEku', ok('legacy')],
      ['anyEku', ok('any')],
      ['clientAndServer', ok('both')],
      // The issuer's key usage lacks certificate signing, so it is not an issuer at all.
      ['issuedByNonCA', fail(X509_ERRORS.unknownAuthority)],
      ['issuedByNonCANoKeyUsage', fail(X509_ERRORS.notCA)],
      ['intermediateServerOnly', fail(X509_ERRORS.usage)],
      ['pathLenIntermediate', fail(X509_ERRORS.pathTooLong)],
      ['pathLenRoot', fail(X509_ERRORS.pathTooLong)],
      ['leafUnderPathLen0', ok('shallow')],
      ['leafUnderRootPathLen0', ok('shallow')],
      ['oneUnderRootPathLen1', ok('one')],
      ['twoUnderRootPathLen1', fail(X509_ERRORS.pathTooLong)],
      ['underPathLen256', ok('wide')],
      ['expiredRoot', fail(X509_ERRORS.expired)],
      ['emptyCN', fail(X509_ERRORS.noCommonName)],
      ['noCN', fail(X509_ERRORS.noCommonName)],
      ['manyGroups', ok('gina', ['g1', 'system:masters', 'g,with,commas', 'g1'])],
      // The subject is read from DER, so a CN that looks like more attributes stays one name.
      ['injectedName', ok('jane\nO=system:masters')],
      // Several CNs: the last one, as upstream reads the subject.
      ['multiCN', ok('second', ['g'])],
      ['unicodeName', ok('jürgen-日本', ['grüppe'])],
      ['garbage', fail(X509_ERRORS.malformed)],
      ['notPem', fail(X509_ERRORS.malformed)],
      ['garbageIntermediate', fail(X509_ERRORS.malformed)],
      ['tooMany', fail(X509_ERRORS.tooMany)],
      // A certificate of the bundle is trusted as it is (as upstream's verifier does).
      ['caItself', ok('platform-client-ca')],
    ];
    for (const [name, want] of cases) {
      assert.ok(certs[name], `fixture ${name}`);
      assert.deepEqual(await auth.authenticate({ certificates: certs[name] }), want, name);
    }
  });

  test("x509 - no presented certificate is not this authenticator's business", async () => {
    const auth = createX509Authenticator(ca.pem);
    assert.deepEqual(await auth.authenticate({}), { kind: 'skip' });
    assert.deepEqual(await auth.authenticate({ certificates: [] }), { kind: 'skip' });
    assert.deepEqual(await auth.authenticate({ certificates: null } as never), { kind: 'skip' });
    // Not a list: a broken or hostile bus message is refused, not treated as "no certificate".
    assert.deepEqual(await auth.authenticate({ certificates: certs.valid![0] } as never), fail(X509_ERRORS.malformed));
    assert.deepEqual(await auth.authenticate({ certificates: { 0: certs.valid![0], length: 1 } } as never), fail(X509_ERRORS.malformed));
    assert.deepEqual(await auth.authenticate({ certificates: [42] } as never), fail(X509_ERRORS.malformed));
    assert.deepEqual(await auth.authenticate({ certificates: [`${certs.valid![0]}${' '.repeat(70_000)}`] }), fail(X509_ERRORS.malformed));
    // A bearer token alone is for the token authenticators.
    assert.deepEqual(await auth.authenticate({ token: 'abc', headers: { 'x-remote-user': ['bob'] } }), { kind: 'skip' });
  });

  test('x509 - only the CAs of the bundle are trusted', async () => {
    const onlyFirst = createX509Authenticator(ca.pem);
    assert.deepEqual(await onlyFirst.authenticate({ certificates: certs.secondCA }), fail(X509_ERRORS.unknownAuthority));
    const onlySecond = createX509Authenticator(ca2.pem);
    assert.deepEqual(await onlySecond.authenticate({ certificates: certs.valid }), fail(X509_ERRORS.unknownAuthority));
    assert.deepEqual(await onlySecond.authenticate({ certificates: certs.secondCA }), ok('sam', ['ops']));
  });

  test('x509 - the validity window is checked against the clock given', () => {
    const trust = parseCABundle(ca.pem, 'test');
    const now = Date.now();
    const cases: Array<[offsetMs: number, ok: boolean]> = [
      [0, true],
      [-2 * HOUR, false], // before the leaf's notBefore (one hour ago)
      [2 * DAY, false], // after its notAfter (one day ahead)
    ];
    for (const [offset, wantOk] of cases) {
      const r = verifyChain(certs.valid!, trust, new Date(now + offset));
      assert.deepEqual(r.ok ? 'ok' : r.error, wantOk ? 'ok' : X509_ERRORS.expired, `offset ${offset}`);
    }
    const viaInter = verifyChain(certs.viaIntermediateWithRoot!, trust);
    assert.ok(viaInter.ok);
    // The returned path is leaf, intermediate, root.
    assert.deepEqual(
      viaInter.chain.map((c) => c.subject),
      ['CN=ivan\nO=interns', 'CN=client-intermediate', 'CN=platform-client-ca'],
    );
  });

  test('x509 - a remembered chain ends with its certificate; a not-yet-valid one is checked again later', async () => {
    // The leaf expires in 2 minutes, sooner than the cache would forget it.
    const MINUTE = 60_000;
    const shortLived = [(await clientCert('brief', ca, ['ops'], { notBefore: new Date(Date.now() - HOUR), notAfter: new Date(Date.now() + 2 * MINUTE) })).pem];
    assert.ok(VERIFIED_CHAIN_TTL_MS > 3 * MINUTE);
    let clock = Date.now();
    const a = createX509Authenticator(bundle, { now: () => clock });
    assert.deepEqual(await a.authenticate({ certificates: shortLived }), ok('brief', ['ops']));
    clock += MINUTE;
    assert.deepEqual(await a.authenticate({ certificates: shortLived }), ok('brief', ['ops']));
    clock += 2 * MINUTE;
    assert.deepEqual(await a.authenticate({ certificates: shortLived }), fail(X509_ERRORS.expired));
    // Refused while it is not valid yet, accepted once it is: the refusal was not remembered.
    clock = Date.now();
    assert.deepEqual(await a.authenticate({ certificates: certs.notYetValid }), fail(X509_ERRORS.expired));
    clock += 2 * HOUR;
    assert.deepEqual(await a.authenticate({ certificates: certs.notYetValid }), ok('early', []));
    // A chain with no path to the bundle stays refused, whatever the clock says.
    for (let i = 0; i < 2; i++) assert.deepEqual(await a.authenticate({ certificates: certs.tampered }), fail(X509_ERRORS.unknownAuthority));
  });

  test('x509 - a CA bundle without a usable certificate stops start-up', () => {
    const cases: Array<[pem: string, err: RegExp]> = [
      ['', /--client-ca-file: the CA bundle contains no PEM certificate/],
      ['just some text\n', /--client-ca-file: the CA bundle contains no PEM certificate/],
      ['-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', /--client-ca-file: the CA bundle contains no PEM certificate/],
      [`${ca.pem}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`, /--client-ca-file: certificate 2 of the CA bundle cannot be parsed/],
    ];
    for (const [pem, err] of cases) assert.throws(() => createX509Authenticator(pem), err);
  });
});
