// The layering, checked in CI (`npm run lint:layers`, which .ci/run calls): each rule names imports
// that must not exist. From the ground up:
//
//   shared/ground, shared/api        the ground: small utilities and the API's types; import nothing else of ours
//   shared/contracts                 what the services promise each other: the storage interface, the
//                                    other services' ports, their message types; on the ground only
//   shared/{proto,patch,quota,       formats and mechanisms: encode, patch, compute, configure, measure;
//     fieldmanager,codec,config,     they know nothing of NATS, the store or the type registry
//     metrics,webhook,client,health}
//   shared/bus                       NATS: connections, subjects, messages, permissions, and the
//                                    NATS clients implementing shared/contracts' interfaces
//   shared/store                     the bucket, its change log and feeds, the watch cache (on the bus)
//   shared/registry, serviceaccount, the API's types and their rules; reach storage and the other
//     audit                          services through shared/contracts' interfaces, never the bus
//   shared/local, service-main.ts    composition: starting things
//   services/<name>                  each service, on shared/ only; never another service
//   scripts, bench, test             tools on top; nothing below imports them
//
// Known violations would be listed in .dependency-cruiser-known-violations.json; it is empty (the
// registry's imports of the bus went when the storage interface and the service ports landed in
// shared/contracts). A new violation fails the run; should one ever have to be accepted, `npx
// depcruise-baseline --config .dependency-cruiser.cjs --output-to
// .dependency-cruiser-known-violations.json shared services scripts bench test` records the list.

const GROUND = '^shared/(ground|api)/';
const CONTRACTS = '^shared/contracts/';
const FORMATS = '^shared/(proto|patch|quota|fieldmanager|codec|config|metrics|webhook|client|health)/';
const INFRA = '^shared/(bus|store)/';
const DOMAIN = '^shared/(registry|serviceaccount|audit)/';
const COMPOSITION = '^shared/(local/|service-main\\.ts)';
/** Tests may use any layer's helpers (a test's PKI, a real neighbour service); the rules are for what runs. */
const TESTS = '(^|/)test/';

module.exports = {
  forbidden: [
    {
      name: 'ground-imports-only-ground',
      comment: 'shared/ground and shared/api are the ground: they import nothing else of ours.',
      severity: 'error',
      from: { path: GROUND, pathNot: TESTS },
      to: { path: '^(shared|services|scripts|bench|test)/', pathNot: GROUND },
    },
    {
      name: 'contracts-on-ground',
      comment: 'The contracts between services are types and interfaces over the ground: no transport, store, registry or composition.',
      severity: 'error',
      from: { path: CONTRACTS, pathNot: TESTS },
      to: { path: '^(shared|services|scripts|bench|test)/', pathNot: [GROUND, CONTRACTS] },
    },
    {
      name: 'formats-below-infrastructure',
      comment: 'Formats and mechanisms know nothing of NATS, the store, the registry or composition.',
      severity: 'error',
      from: { path: FORMATS, pathNot: TESTS },
      to: { path: [INFRA, DOMAIN, COMPOSITION] },
    },
    {
      name: 'bus-below-store',
      comment: 'The bus knows nothing of the store built on it, of the API types, or of composition.',
      severity: 'error',
      from: { path: '^shared/bus/', pathNot: TESTS },
      to: { path: ['^shared/store/', DOMAIN, COMPOSITION] },
    },
    {
      name: 'store-below-domain',
      comment: 'The store knows nothing of the API types built on it, or of composition.',
      severity: 'error',
      from: { path: '^shared/store/', pathNot: TESTS },
      to: { path: [DOMAIN, COMPOSITION] },
    },
    {
      name: 'domain-not-on-infrastructure',
      comment: 'The API types reach storage and the other services through interfaces, not NATS subjects or the watch cache.',
      severity: 'error',
      from: { path: '^shared/registry/', pathNot: TESTS },
      to: { path: [INFRA, COMPOSITION] },
    },
    {
      name: 'shared-never-imports-services',
      severity: 'error',
      from: { path: '^shared/', pathNot: TESTS },
      to: { path: '^services/' },
    },
    {
      name: 'services-are-independent',
      comment: 'A service imports shared/ and itself, never another service (they talk over NATS).',
      severity: 'error',
      from: { path: '^services/([^/]+)/', pathNot: TESTS },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'tools-on-top',
      comment: 'Nothing the services run imports the scripts, the benchmarks or the tests.',
      severity: 'error',
      from: { path: '^(shared|services)/', pathNot: TESTS },
      to: { path: ['^(scripts|bench|test)/', '/test/'] },
    },
    {
      name: 'scripts-not-bench',
      comment: 'The scripts are built into the image; the benchmarks are not.',
      severity: 'error',
      from: { path: '^scripts/', pathNot: TESTS },
      to: { path: '^bench/' },
    },
    {
      name: 'no-circular',
      comment: 'No module reaches itself through its imports, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
