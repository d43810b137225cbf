// The finalizers of StorageObjectInUseProtection: the admission plugin puts them on every new claim
// and volume, the pvc-protection and pv-protection controllers take them off once nothing uses the
// object. One table, so the two sides cannot drift apart by name.

export const PVC_PROTECTION_FINALIZER = 'platform.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'platform.io/pv-protection';
