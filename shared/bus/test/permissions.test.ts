import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NATS_USER_ROLES, NatsUser, natsPermissions, userInboxPrefix, type NatsUserRole } from '../permissions.js';
import { ServiceName, SubjectGroup, Subjects, serviceSubjects } from '../subjects.js';

/** Whether a NATS permission pattern covers a literal subject (`*` one token, `>` the rest). */
function covers(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

const allowed = (patterns: string[], subject: string) => patterns.some((p) => covers(p, subject));
const SERVICES = ['storage', 'authn', 'authz', 'admission'] as const;

test('nats permissions - only storage may write the bucket or change its stream, and nobody may delete it', () => {
  for (const bucket of ['objects', 'other']) {
    const perms = natsPermissions(bucket);
    const stream = `KV_${bucket}`;
    const writes = [`$KV.${bucket}.core.configmaps.default.x`, `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`, `$JS.API.STREAM.PURGE.${stream}`];
    for (const role of NATS_USER_ROLES) {
      for (const subject of writes) assert.equal(allowed(perms[role].publish, subject), role === 'storage', `${role} publishing ${subject}`);
      for (const subject of [`$JS.API.STREAM.DELETE.${stream}`, '$JS.API.STREAM.CREATE.OTHER', `$KV.${bucket === 'objects' ? 'other' : 'objects'}.k`]) {
        assert.equal(allowed(perms[role].publish, subject), false, `${role} publishing ${subject}`);
      }
    }
    // Readers: what a KV watch sends, and the delete that retires a replay's consumer.
    for (const role of ['gateway', 'authn', 'authz', 'admission', 'storage'] as const) {
      for (const subject of [
        `$JS.API.STREAM.INFO.${stream}`,
        `$JS.API.CONSUMER.CREATE.${stream}.oc_1.$KV.${bucket}.>`,
        `$JS.API.CONSUMER.INFO.${stream}.oc_1`,
        `$JS.API.CONSUMER.DELETE.${stream}.oc_1`,
        `$JS.FC.${stream}.oc_1.x`,
      ]) {
        assert.ok(allowed(perms[role].publish, subject), `${role} publishing ${subject}`);
      }
    }
  }
});

test('nats permissions - a service answers only its own subjects and reads only its own inbox', () => {
  const perms = natsPermissions('objects');
  for (const own of SERVICES) {
    const name = ServiceName[own];
    const p = perms[own];
    const endpoints = Object.values(Subjects).filter((x) => x.startsWith(`${SubjectGroup[own]}.`) && x !== Subjects.admissionInterestChanged);
    for (const e of endpoints) assert.ok(allowed(p.subscribe, e), `${own} answering ${e}`);
    assert.equal(allowed(p.subscribe, `${SubjectGroup[own]}.anything`), false, `${own} answering what it does not serve`);
    for (const verb of ['ping', 'info', 'stats'] as const) {
      assert.ok(allowed(p.subscribe, serviceSubjects[verb](name)));
      assert.ok(allowed(p.subscribe, `${serviceSubjects[verb](name)}.instance`));
    }
    assert.equal(p.allowResponses, true, 'answers go back without a publish permission on inboxes');
    assert.equal(allowed(p.publish, '_INBOX.anyone.x'), false);
    for (const other of SERVICES.filter((s) => s !== own)) {
      assert.equal(allowed(p.subscribe, `${SubjectGroup[other]}.anything`), false, `${own} answering ${other}`);
      assert.equal(allowed(p.subscribe, serviceSubjects.ping(ServiceName[other])), false, `${own} answering ${other}'s ping`);
    }
  }
  for (const role of NATS_USER_ROLES) {
    const inbox = userInboxPrefix(NatsUser[role]);
    assert.ok(allowed(perms[role].subscribe, `${inbox}.abc.1`), `${role} reading its replies`);
    for (const other of NATS_USER_ROLES.filter((r) => r !== role))
      assert.equal(allowed(perms[role].subscribe, `${userInboxPrefix(NatsUser[other])}.abc.1`), false, `${role} reading ${other}'s replies`);
    assert.equal(allowed(perms[role].subscribe, '_INBOX.abc'), false);
  }
});

test('nats permissions - who may call whom', () => {
  const perms = natsPermissions('objects');
  const calls = (role: NatsUserRole, service: (typeof SERVICES)[number]) =>
    Object.values(Subjects).some((x) => x.startsWith(`${SubjectGroup[service]}.`) && x !== Subjects.admissionInterestChanged && allowed(perms[role].publish, x));
  const table = Object.fromEntries(NATS_USER_ROLES.map((r) => [r, SERVICES.filter((s) => calls(r, s))]));
  assert.deepEqual(table, {
    storage: [],
    authn: ['storage'],
    authz: ['storage', 'admission'],
    admission: ['storage', 'authz'],
    gateway: ['storage', 'authn', 'authz', 'admission'],
    monitor: [],
  });
  // The gateway answers nothing; it hears admission's interest changes.
  assert.equal(perms.gateway.allowResponses, false);
  assert.deepEqual(
    perms.gateway.subscribe.filter((s) => !s.startsWith('_INBOX.')),
    [Subjects.admissionInterestChanged],
  );
  // The monitor pings and reads stream statistics, nothing else.
  assert.ok(allowed(perms.monitor.publish, serviceSubjects.ping(ServiceName.storage)));
  assert.ok(allowed(perms.monitor.publish, '$JS.API.STREAM.INFO.KV_objects'));
  assert.equal(allowed(perms.monitor.publish, '$JS.API.CONSUMER.CREATE.KV_objects'), false);
  // authn reads through storage and cannot write through it.
  assert.deepEqual(
    Object.values(Subjects).filter((x) => allowed(perms.authn.publish, x)),
    [Subjects.storageGet],
  );
  // Only the bucket's readers receive what its consumers deliver; the monitor nothing.
  assert.deepEqual(perms.monitor.deliveries, []);
  // Storage also hears of every consumer made on the bucket (its consumer warden), and may list them; nobody else may.
  for (const role of NATS_USER_ROLES.filter((r) => r !== 'monitor')) {
    const announcements = role === 'storage' ? ['$JS.EVENT.ADVISORY.CONSUMER.CREATED.KV_objects.*'] : [];
    assert.deepEqual(perms[role].deliveries, [`${userInboxPrefix(NatsUser[role])}.>`, ...announcements]);
    assert.equal(allowed(perms[role].subscribe, '$JS.EVENT.ADVISORY.CONSUMER.CREATED.KV_objects.x'), role === 'storage', role);
    assert.equal(allowed(perms[role].publish, '$JS.API.CONSUMER.LIST.KV_objects'), role === 'storage', role);
  }
});
