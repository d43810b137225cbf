// Seccomp and AppArmor profiles under a PodSecurityPolicy (upstream's podsecuritypolicy/seccomp and
// /apparmor). Both are set by the policy's annotations: `…/defaultProfileName` defaults the pod
// (seccomp, pod annotation) or each container (AppArmor, container annotation) and
// `…/allowedProfileNames` (comma list; `*` any, for seccomp) restricts them. A seccomp profile
// may come from the securityContext field too; it is read as the annotation value it stands for.

import { forbidden, type PspFieldError } from './field-errors.js';
import { annotationsOf, podField, containerField, type Json, type Pod } from './pod.js';

export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.platform.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.platform.io/';
export const SECCOMP_DEFAULT_PROFILE_ANNOTATION = 'seccomp.security.alpha.platform.io/defaultProfileName';
export const SECCOMP_ALLOWED_PROFILES_ANNOTATION = 'seccomp.security.alpha.platform.io/allowedProfileNames';
export const APPARMOR_CONTAINER_ANNOTATION_PREFIX = 'container.apparmor.security.beta.platform.io/';
export const APPARMOR_DEFAULT_PROFILE_ANNOTATION = 'apparmor.security.beta.platform.io/defaultProfileName';
export const APPARMOR_ALLOWED_PROFILES_ANNOTATION = 'apparmor.security.beta.platform.io/allowedProfileNames';

const ALLOW_ANY = '*';

/** The annotation value a `seccompProfile` field stands for ('' for an incomplete Localhost). */
export function seccompAnnotationForField(profile: { type?: string; localhostProfile?: string }): string {
  switch (profile.type) {
    case 'Unconfined':
      return 'unconfined';
    case 'RuntimeDefault':
      return 'runtime/default';
    case 'Localhost':
      return typeof profile.localhostProfile === 'string' ? `localhost/${profile.localhostProfile}` : '';
    default:
      return '';
  }
}

export interface SeccompStrategy {
  /** The pod annotation's value after defaulting ('' leaves it). */
  generate(pod: Pod): string;
  validatePod(pod: Pod): PspFieldError[];
  validateContainer(pod: Pod, c: Json): PspFieldError[];
}

export function seccompStrategy(pspAnnotations: Record<string, string>): SeccompStrategy {
  const allowedText = pspAnnotations[SECCOMP_ALLOWED_PROFILES_ANNOTATION];
  const allowed = new Set<string>();
  let allowAny = false;
  if (allowedText !== undefined) {
    for (const p of allowedText.split(',')) {
      if (p === ALLOW_ANY) allowAny = true;
      else allowed.add(p);
    }
  }
  const defaultProfile = pspAnnotations[SECCOMP_DEFAULT_PROFILE_ANNOTATION] ?? '';
  const profileAllowed = (p: string): boolean => (allowed.size === 0 && p === '') || allowAny || allowed.has(p);

  const check = (field: string, profile: string): PspFieldError[] => {
    if (!allowAny && allowed.size === 0 && profile !== '') return [forbidden(field, 'seccomp may not be set')];
    if (!profileAllowed(profile)) return [forbidden(field, `${profile} is not an allowed seccomp profile. Valid values are ${allowedText ?? ''}`)];
    return [];
  };
  const podProfile = (pod: Pod): string => {
    const annotated = annotationsOf(pod)[SECCOMP_POD_ANNOTATION];
    if (annotated) return annotated;
    const field = podField<Json>(pod, 'seccompProfile');
    return field ? seccompAnnotationForField(field) : '';
  };

  return {
    generate(pod) {
      if (annotationsOf(pod)[SECCOMP_POD_ANNOTATION] || podField(pod, 'seccompProfile')) return podProfile(pod);
      return defaultProfile;
    },
    validatePod: (pod) => check(`pod.metadata.annotations[${SECCOMP_POD_ANNOTATION}]`, podProfile(pod)),
    validateContainer(pod, c) {
      const name = String(c.name ?? '');
      const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + name;
      const own = containerField<Json>(c, 'seccompProfile');
      const annotations = annotationsOf(pod);
      let profile: string;
      if (own) profile = seccompAnnotationForField(own);
      else if (key in annotations) profile = annotations[key]!;
      else {
        const field = podField<Json>(pod, 'seccompProfile');
        profile = field ? seccompAnnotationForField(field) : (annotations[SECCOMP_POD_ANNOTATION] ?? '');
      }
      return check(`pod.metadata.annotations[${key}]`, profile);
    },
  };
}

export interface AppArmorStrategy {
  /** The container's annotation to add ('' for none). */
  generate(pod: Pod, c: Json): string;
  validate(pod: Pod, c: Json): PspFieldError[];
}

export function appArmorStrategy(pspAnnotations: Record<string, string>): AppArmorStrategy {
  const allowedText = pspAnnotations[APPARMOR_ALLOWED_PROFILES_ANNOTATION];
  const allowed = allowedText === undefined ? undefined : new Set(allowedText.split(','));
  const defaultProfile = pspAnnotations[APPARMOR_DEFAULT_PROFILE_ANNOTATION] ?? '';
  return {
    generate(pod, c) {
      if (annotationsOf(pod)[APPARMOR_CONTAINER_ANNOTATION_PREFIX + String(c.name ?? '')]) return '';
      return defaultProfile;
    },
    validate(pod, c) {
      if (!allowed) return [];
      const key = APPARMOR_CONTAINER_ANNOTATION_PREFIX + String(c.name ?? '');
      const field = `pod.metadata.annotations[${key}]`;
      const profile = annotationsOf(pod)[key] ?? '';
      if (profile === '') return allowed.size > 0 ? [forbidden(field, 'AppArmor profile must be set')] : [];
      return allowed.has(profile) ? [] : [forbidden(field, `${profile} is not an allowed profile. Allowed values: ${JSON.stringify(allowedText)}`)];
    },
  };
}
