import { describe, expect, it } from 'vitest';
import { createDeviceAccess, devicePattern, parseDevicePatterns } from '../../src/hub/device-access.js';
import { ValidationException } from '../../src/model/errors.js';

describe('devicePattern', () => {
  it.each([
    ['van-3', 'van-3', true],
    ['van-3', 'van-33', false],
    ['pump-*', 'pump-17', true],
    ['pump-*', 'pump-', true],
    ['pump-*', 'pumpx-1', false],
    ['*-north', 'van-north', true],
    ['*-north', 'van-north-2', false],
    ['a.b', 'aXb', false], // a dot is a dot, not "any character"
    ['*', 'anything.at_all-1', true],
    ['site-*-van-*', 'site-7-van-2', true],
    ['site-*-van-*', 'site-7-pump-2', false],
  ])('%s matches %s: %s', (pattern, id, expected) => {
    expect(devicePattern(pattern)(id)).toBe(expected);
  });

  it.each(['', 'van/3', 'van+', 'van#', 'a'.repeat(129), 'van 3'])('refuses the pattern %j with a ValidationException', (pattern) => {
    expect(() => devicePattern(pattern)).toThrow(ValidationException);
  });
});

describe('parseDevicePatterns', () => {
  it('reads comma, space and line separated patterns with # comments (a file of them)', () => {
    expect(parseDevicePatterns('pump-*, van-3\n# the north site\nnorth-* # vans\n\n  tablet-9  ')).toEqual(['pump-*', 'van-3', 'north-*', 'tablet-9']);
  });
});

describe('createDeviceAccess', () => {
  it('without options allows every device and every subscription', () => {
    const access = createDeviceAccess();
    expect(access.isAllowed('anyone')).toBe(true);
    expect(access.authorizeSubscription('anyone', 'WorkOrders')).toBe(true);
    expect(access.authorizeSubscription('anyone', 'WorkOrders', ['site-1'])).toBe(true);
  });

  it('an allow-list of patterns admits only matching devices, for batches and subscriptions alike', () => {
    const access = createDeviceAccess({ allowDevices: ['pump-*', 'van-3'] });
    expect(['pump-1', 'pump-abc', 'van-3'].map(access.isAllowed)).toEqual([true, true, true]);
    expect(['van-4', 'pum-1', 'van-33'].map(access.isAllowed)).toEqual([false, false, false]);
    expect(access.subscriptionDenial('van-4', 'WorkOrders', ['site-7'])).toBe("device van-4 is not on the hub's allow-list");
    expect(access.authorizeSubscription('van-3', 'WorkOrders', ['site-7'])).toBe(true);
  });

  it('an allow-list may be a function', () => {
    const access = createDeviceAccess({ allowDevices: (id) => id.length === 5 });
    expect(access.isAllowed('van-3')).toBe(true);
    expect(access.isAllowed('van-33')).toBe(false);
  });

  it('an empty allow-list admits nobody', () => {
    expect(createDeviceAccess({ allowDevices: [] }).isAllowed('van-3')).toBe(false);
  });

  it('the subscription map grants listed partition key values per table, or whole tables with "*"', () => {
    const access = createDeviceAccess({
      subscriptions: {
        'van-*': { WorkOrders: ['site-7', 'site-8'], Catalog: '*' },
        'van-3': { WorkOrders: ['site-9'] },
        'pump-*': { Settings: [17, { N: '18' }] },
      },
    });
    expect(access.authorizeSubscription('van-1', 'WorkOrders', ['site-7'])).toBe(true);
    expect(access.authorizeSubscription('van-1', 'WorkOrders', ['site-7', 'site-8'])).toBe(true);
    expect(access.subscriptionDenial('van-1', 'WorkOrders', ['site-7', 'site-9'])).toBe('device van-1 may not subscribe to WorkOrders partition key "site-9"');
    // Grants of every matching entry add up: van-3 gets site-9 as well as the van-* sites.
    expect(access.authorizeSubscription('van-3', 'WorkOrders', ['site-7', 'site-9'])).toBe(true);
    expect(access.subscriptionDenial('van-1', 'WorkOrders')).toBe('device van-1 may not subscribe to the whole table WorkOrders');
    expect(access.authorizeSubscription('van-1', 'Catalog')).toBe(true);
    expect(access.authorizeSubscription('van-1', 'Catalog', ['anything'])).toBe(true);
    // Not named for the device: nothing.
    expect(access.authorizeSubscription('van-1', 'Settings', [17])).toBe(false);
    expect(access.authorizeSubscription('tablet-1', 'WorkOrders', ['site-7'])).toBe(false);
    // Numbers: 17, '17', {N: '17.0'} are one key value.
    expect(access.authorizeSubscription('pump-2', 'Settings', [{ N: '17.0' }, 18])).toBe(true);
    expect(access.authorizeSubscription('pump-2', 'Settings', ['19'])).toBe(false);
    expect(access.authorizeSubscription('pump-2', 'Settings', [{ S: '17' }])).toBe(true);
  });

  it('the allow-list is checked before the subscription map', () => {
    const access = createDeviceAccess({ allowDevices: ['van-1'], subscriptions: { 'van-*': { Catalog: '*' } } });
    expect(access.authorizeSubscription('van-1', 'Catalog')).toBe(true);
    expect(access.authorizeSubscription('van-2', 'Catalog')).toBe(false);
  });

  it('bad options are a ValidationException naming the entry, at creation', () => {
    expect(() => createDeviceAccess({ allowDevices: ['van/1'] })).toThrow(/invalid device pattern "van\/1"/);
    expect(() => createDeviceAccess({ subscriptions: { 'van-*': { WorkOrders: 'site-7' as never } } })).toThrow(/subscriptions\["van-\*"\]\["WorkOrders"\] must be a list/);
    expect(() => createDeviceAccess({ subscriptions: { 'van-*': { WorkOrders: [true as never] } } })).toThrow(ValidationException);
    expect(() => createDeviceAccess({ subscriptions: { 'van-*': ['WorkOrders'] as never } })).toThrow(/must map table names/);
  });
});

describe('createDeviceAccess: write grants', () => {
  it('without grants of either kind every admitted device writes everything', () => {
    const access = createDeviceAccess({ allowDevices: ['van-*'] });
    expect(access.tableWriteDenial('van-1', 'Anything')).toBeUndefined();
    expect(access.writeDenial('van-1', 'Anything', 'any-key')).toBeUndefined();
    expect(access.writeDenial('pump-1', 'Anything', 'any-key')).toBe("device pump-1 is not on the hub's allow-list");
  });

  it('by default a device writes what its subscription grants let it receive, and nothing else', () => {
    const access = createDeviceAccess({ subscriptions: { 'van-*': { WorkOrders: ['site-7'], Catalog: '*' } } });
    expect(access.writeDenial('van-1', 'WorkOrders', 'site-7')).toBeUndefined();
    expect(access.writeDenial('van-1', 'WorkOrders', 'site-9')).toBe('device van-1 may not write WorkOrders partition key "site-9"');
    expect(access.writeDenial('van-1', 'Catalog', 'anything')).toBeUndefined();
    expect(access.tableWriteDenial('van-1', 'WorkOrders')).toBeUndefined(); // it names the table: some of it is writable
    expect(access.tableWriteDenial('van-1', 'Secrets')).toBe('device van-1 may not write table Secrets');
    expect(access.writeDenial('van-1', 'Secrets', 'site-7')).toBe('device van-1 may not write table Secrets');
    expect(access.tableWriteDenial('pump-1', 'Catalog')).toBe('device pump-1 may not write table Catalog');
  });

  it('writeGrants replace the subscription grants for writes, not for subscriptions; grants of matching entries add up', () => {
    const access = createDeviceAccess({
      subscriptions: { 'van-*': { WorkOrders: '*' } },
      writeGrants: { 'van-*': { WorkOrders: ['site-7'] }, 'van-9': { WorkOrders: ['site-9'], Readings: '*' }, 'pump-*': { Settings: [17] } },
    });
    expect(access.authorizeSubscription('van-1', 'WorkOrders', ['site-9'])).toBe(true);
    expect(access.writeDenial('van-1', 'WorkOrders', 'site-9')).toBe('device van-1 may not write WorkOrders partition key "site-9"');
    expect(access.writeDenial('van-9', 'WorkOrders', 'site-9')).toBeUndefined();
    expect(access.writeDenial('van-9', 'WorkOrders', 'site-7')).toBeUndefined();
    expect(access.writeDenial('van-9', 'Readings', 'r-1')).toBeUndefined();
    expect(access.tableWriteDenial('van-1', 'Readings')).toBe('device van-1 may not write table Readings');
    // Numbers: 17, '17' and {N: '17.0'} are one key value.
    expect(access.writeDenial('pump-2', 'Settings', { N: '17.0' })).toBeUndefined();
    expect(access.writeDenial('pump-2', 'Settings', '17')).toBeUndefined();
    expect(access.writeDenial('pump-2', 'Settings', 18)).toBe('device pump-2 may not write Settings partition key "18"');
  });

  it('a table named like an Object property is an ordinary name', () => {
    const access = createDeviceAccess({ writeGrants: { 'van-*': { WorkOrders: '*' } } });
    expect(access.tableWriteDenial('van-1', '__proto__')).toBe('device van-1 may not write table __proto__');
    expect(access.tableWriteDenial('van-1', 'constructor')).toBe('device van-1 may not write table constructor');
  });

  it('bad write grants are a ValidationException naming the option and entry, at creation', () => {
    expect(() => createDeviceAccess({ writeGrants: { 'van-*': { WorkOrders: 'site-7' as never } } })).toThrow(/writeGrants\["van-\*"\]\["WorkOrders"\] must be a list/);
    expect(() => createDeviceAccess({ writeGrants: { 'van/*': { WorkOrders: '*' } } })).toThrow(/invalid device pattern/);
    expect(() => createDeviceAccess({ writeGrants: [] as never })).toThrow(/writeGrants must map device patterns/);
  });
});
