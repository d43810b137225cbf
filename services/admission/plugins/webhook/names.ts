// The two plugin names, apart from the plugins so the folder's index can name them without
// loading the plugins first (the admission configuration errors they throw import the registry).

export const MUTATING_ADMISSION_WEBHOOK = 'MutatingAdmissionWebhook';
export const VALIDATING_ADMISSION_WEBHOOK = 'ValidatingAdmissionWebhook';
