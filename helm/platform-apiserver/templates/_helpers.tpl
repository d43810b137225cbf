{{/*
Names, labels, and the pieces every service's Deployment shares. Templates taking a dict get
`root` (the top-level context), `component` (storage, authn, …) and `svc` (that service's values).
*/}}

{{- define "platform.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Prefix of every object's name: at most 43 characters, so that with the longest suffix the chart
adds ("-service-account-key") a name stays within 63. A release named `platform` (part of the
chart's name) gives `platform-gateway`, `platform-nats`, …
*/}}
{{- define "platform.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 43 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if or (contains $name .Release.Name) (contains .Release.Name $name) }}
{{- .Release.Name | trunc 43 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 43 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "platform.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "platform.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* dict: root, component */}}
{{- define "platform.componentLabels" -}}
{{ include "platform.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* dict: root, component */}}
{{- define "platform.selectorLabels" -}}
app.kubernetes.io/name: {{ include "platform.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "platform.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "platform.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "platform.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The gateway Service's DNS names, shortest first; the controllers use the last. */}}
{{- define "platform.gatewayHosts" -}}
{{- $svc := printf "%s-gateway" (include "platform.fullname" .) }}
{{- list $svc (printf "%s.%s" $svc .Release.Namespace) (printf "%s.%s.svc" $svc .Release.Namespace) (printf "%s.%s.svc.%s" $svc .Release.Namespace .Values.clusterDomain) | toJson }}
{{- end }}

{{- define "platform.bundledNats" -}}
{{- if not .Values.nats.url }}true{{ end }}
{{- end }}

{{- define "platform.natsUrl" -}}
{{- if .Values.nats.url }}
{{- .Values.nats.url }}
{{- else }}
{{- printf "nats://%s-nats.%s.svc.%s:4222" (include "platform.fullname" .) .Release.Namespace .Values.clusterDomain }}
{{- end }}
{{- end }}

{{/* Secret names: supplied ones where given. */}}
{{- define "platform.servingSecret" -}}
{{- .Values.pki.serving.existingSecret | default (printf "%s-serving-cert" (include "platform.fullname" .)) }}
{{- end }}
{{- define "platform.serviceAccountKeySecret" -}}
{{- .Values.pki.serviceAccountKey.existingSecret | default (printf "%s-service-account-key" (include "platform.fullname" .)) }}
{{- end }}
{{- define "platform.tokensSecret" -}}
{{- .Values.authn.tokenAuthFile.existingSecret | default (printf "%s-tokens" (include "platform.fullname" .)) }}
{{- end }}
{{- define "platform.hasTokenFile" -}}
{{- if or .Values.authn.tokenAuthFile.existingSecret .Values.authn.adminToken }}true{{ end }}
{{- end }}

{{/*
The flags every NATS-speaking service takes (commonOptions), as YAML: where NATS is, how the
service verifies it (TLS) and who it is there (its own NATS user, or its credentials file). Merged
into each service's config file.  dict: root, component
*/}}
{{- define "platform.natsConfig" -}}
{{- $v := .root.Values }}
nats-url: {{ include "platform.natsUrl" .root | quote }}
log-level: {{ $v.logLevel | quote }}
{{- if eq $v.nats.auth.mode "users" }}
nats-user: {{ index $v.nats.auth.userNames .component | quote }}
nats-password-file: /etc/platform/nats-auth/password
{{- else if eq $v.nats.auth.mode "creds" }}
nats-creds: /etc/platform/nats-auth/nats.creds
{{- end }}
{{- if include "platform.natsCA" .root }}
nats-tls-ca-file: /etc/platform/nats-tls/ca.crt
{{- end }}
{{- if include "platform.natsClientCertSecret" .root }}
nats-tls-cert-file: /etc/platform/nats-client/tls.crt
nats-tls-key-file: /etc/platform/nats-client/tls.key
{{- end }}
{{- end }}

{{/* The PEM that verifies NATS's certificate (the chart's NATS CA for the bundled NATS), when TLS is on. */}}
{{- define "platform.natsCA" -}}
{{- if .Values.nats.tls.enabled }}
{{- if include "platform.bundledNats" . }}bundled{{ else }}{{ .Values.nats.tls.caBundle }}{{ end }}
{{- end }}
{{- end }}

{{/* The Secret with the client certificate every service presents to NATS, if any. */}}
{{- define "platform.natsClientCertSecret" -}}
{{- if .Values.nats.tls.enabled }}
{{- if and (include "platform.bundledNats" .) .Values.nats.tls.verifyClients }}
{{- printf "%s-nats-client-cert" (include "platform.fullname" .) }}
{{- else if not (include "platform.bundledNats" .) }}
{{- .Values.nats.tls.clientCertSecret }}
{{- end }}
{{- end }}
{{- end }}

{{/* The Secret with the services' NATS passwords (users) or credentials files (creds). */}}
{{- define "platform.natsAuthSecret" -}}
{{- .Values.nats.auth.existingSecret | default (printf "%s-nats-users" (include "platform.fullname" .)) }}
{{- end }}

{{/* The NATS services, in the order the bundled NATS lists its users. */}}
{{- define "platform.natsRoles" -}}
{{- list "storage" "authn" "authz" "admission" "gateway" | toJson }}
{{- end }}

{{/*
Each NATS user's permissions: files/nats-permissions.json, generated from shared/bus/permissions.ts
by scripts/gen-helm-permissions.ts (do not edit it; after changing permissions.ts run
`npm run gen:helm-permissions`, or the chart's tests fail), with its placeholders for what the
values decide replaced: __BUCKET__ by bucket, __USER_<ROLE>__ by nats.auth.userNames.<role>.
A JSON object: role → {publish, subscribe, allow_responses}.
*/}}
{{- define "platform.natsPermissions" -}}
{{- $file := "files/nats-permissions.json" }}
{{- $text := .Files.Get $file }}
{{- if not $text }}
{{- fail (printf "%s is missing from the chart: without it NATS users would get no permissions (is it in .helmignore?)" $file) }}
{{- end }}
{{- $text = replace "__BUCKET__" .Values.bucket $text }}
{{- range $role := include "platform.natsRoles" . | fromJsonArray }}
{{- $text = replace (printf "__USER_%s__" (upper $role)) (index $.Values.nats.auth.userNames $role) $text }}
{{- end }}
{{- $text | fromJson | toJson }}
{{- end }}

{{/*
The bundled NATS's `accounts` block, as shared/local/nats-server.ts writes it: the store account
PLATFORM_STORE holds JetStream (the bucket's streams) and no user, and exports to the bus account
alone its JetStream API, the bucket's and change log's put subjects and, as streams, each
service's inbox prefix, so a consumer can deliver to nothing but a bucket reader's inbox, and the
announcements of consumers made on the bucket (storage's consumer warden subscribes); the bus
account PLATFORM has one line per service user, its password taken from the server's environment
($NATS_PASSWORD_<SERVICE>, from the passwords Secret) so the ConfigMap holds no secret, and
imports exactly those. Subjects are quoted strings (toJson would escape `>`, which nats-server
cannot read).
*/}}
{{- define "platform.natsAuthorization" -}}
{{- $perms := include "platform.natsPermissions" . | fromJson }}
{{- $users := .Values.nats.auth.userNames }}
{{- $b := .Values.bucket }}
{{- $roles := include "platform.natsRoles" . | fromJsonArray }}
{{- $services := list (list "$JS.API.>" "stream") (list "$JS.FC.>" "singleton") (list (printf "$KV.%s.>" $b) "singleton") (list (printf "platform.changes.%s.>" $b) "singleton") }}
accounts {
  PLATFORM_STORE: {
    jetstream: {max_consumers: 256}
    exports: [
      {{- range $services }}
      {service: {{ index . 0 | quote }}, response_type: {{ index . 1 }}, accounts: [PLATFORM]}
      {{- end }}
      {{- range $role := $roles }}
      {stream: {{ printf "_INBOX.%s.>" (index $users $role) | quote }}, accounts: [PLATFORM]}
      {{- if eq $role "storage" }}
      {stream: {{ printf "$JS.EVENT.ADVISORY.CONSUMER.CREATED.KV_%s.*" $b | quote }}, accounts: [PLATFORM]}
      {{- end }}
      {{- end }}
    ]
  }
  PLATFORM: {
    users: [
      {{- range $role := $roles }}
      {{- $p := index $perms $role }}
      {user: {{ index $users $role | quote }}, password: $NATS_PASSWORD_{{ upper $role }}, permissions: {"publish": {"allow": [{{ include "platform.quotedList" $p.publish }}]}, "subscribe": {"allow": [{{ include "platform.quotedList" $p.subscribe }}]}{{ if $p.allow_responses }}, "allow_responses": true{{ end }}}}
      {{- end }}
    ]
    imports: [
      {{- range $services }}
      {service: {account: PLATFORM_STORE, subject: {{ index . 0 | quote }}}}
      {{- end }}
      {{- range $role := $roles }}
      {stream: {account: PLATFORM_STORE, subject: {{ printf "_INBOX.%s.>" (index $users $role) | quote }}}}
      {{- if eq $role "storage" }}
      {stream: {account: PLATFORM_STORE, subject: {{ printf "$JS.EVENT.ADVISORY.CONSUMER.CREATED.KV_%s.*" $b | quote }}}}
      {{- end }}
      {{- end }}
    ]
  }
}
{{- end }}

{{- define "platform.quotedList" -}}
{{- range $i, $s := . }}{{ if $i }}, {{ end }}{{ $s | quote }}{{ end }}
{{- end }}

{{/*
A service's config file: `config` (a dict of flag names to values, already holding the service's
own mapping) with the common NATS flags (unless `nats` is false) and the service's extraConfig,
which wins.  dict: root, component, svc, config, nats
*/}}
{{- define "platform.configFile" -}}
{{- $c := .config }}
{{- if .nats }}
{{- range $k, $v := fromYaml (include "platform.natsConfig" (dict "root" .root "component" .component)) }}
{{- $_ := set $c $k $v }}
{{- end }}
{{- end }}
{{- range $k, $v := .svc.extraConfig }}
{{- $_ := set $c $k $v }}
{{- end }}
{{- toYaml $c }}
{{- end }}

{{/*
Pod annotations that roll the pods when their configuration or the certificates' values change.
dict: root, svc, config (the rendered config file)
*/}}
{{- define "platform.podAnnotations" -}}
checksum/config: {{ .config | sha256sum }}
checksum/pki: {{ toJson (list .root.Values.pki .root.Values.authn.tokenAuthFile .root.Values.authn.adminToken .root.Values.authn.clientCAExtraBundle .root.Values.authn.requestHeader.clientCA .root.Values.nats.auth .root.Values.nats.tls) | sha256sum }}
{{- with .svc.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Anti-affinity and zone spread of one component's replicas.  dict: root, component, svc */}}
{{- define "platform.scheduling" -}}
{{- $sched := .root.Values.scheduling }}
{{- with .svc.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .svc.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if .svc.affinity }}
affinity:
  {{- toYaml .svc.affinity | nindent 2 }}
{{- else if eq $sched.podAntiAffinity "hard" }}
affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "platform.selectorLabels" . | nindent 12 }}
{{- else if eq $sched.podAntiAffinity "soft" }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "platform.selectorLabels" . | nindent 14 }}
{{- end }}
{{- if .svc.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml .svc.topologySpreadConstraints | nindent 2 }}
{{- else if $sched.topologySpread.enabled }}
topologySpreadConstraints:
  - maxSkew: {{ $sched.topologySpread.maxSkew | int }}
    topologyKey: {{ $sched.topologySpread.topologyKey }}
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "platform.selectorLabels" . | nindent 8 }}
{{- end }}
{{- end }}

{{/*
Probes of a service with no HTTP listener: scripts/ping-service.ts in the same container sends
`$SRV.PING.<service>` and passes only when this replica answers. Liveness passes while NATS
itself is unreachable (a restart cannot mend the broker); readiness does not. Each run starts a
node process (about 0.3 s of CPU), hence the unhurried periods.  dict: component
*/}}
{{- define "platform.pingProbes" -}}
{{- $cmd := list "node" "/app/dist/scripts/ping-service.js" .component "--timeout=3s" "--config=/etc/platform/config/config.yaml" }}
startupProbe:
  exec:
    command: {{ append $cmd "--liveness" | toJson }}
  periodSeconds: 5
  timeoutSeconds: 5
  failureThreshold: 30
livenessProbe:
  exec:
    command: {{ append $cmd "--liveness" | toJson }}
  periodSeconds: 30
  timeoutSeconds: 5
  failureThreshold: 3
readinessProbe:
  exec:
    command: {{ $cmd | toJson }}
  periodSeconds: 15
  timeoutSeconds: 5
  failureThreshold: 2
{{- end }}

{{/*
One service's Deployment. dict: root, component, svc, config (rendered config file), probes,
ports, volumes, mounts (YAML lists or maps as strings), replicas (omitted when an autoscaler owns
them), terminationGracePeriodSeconds.
*/}}
{{- define "platform.deployment" -}}
{{- $root := .root }}
{{- $sel := dict "root" .root "component" .component "svc" .svc }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "platform.fullname" $root }}-{{ .component }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "platform.componentLabels" $sel | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" .replicas) }}
  replicas: {{ .replicas | int }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "platform.selectorLabels" $sel | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  template:
    metadata:
      labels:
        {{- include "platform.selectorLabels" $sel | nindent 8 }}
      annotations:
        {{- include "platform.podAnnotations" (dict "root" $root "svc" .svc "config" .config) | nindent 8 }}
    spec:
      serviceAccountName: {{ include "platform.serviceAccountName" $root }}
      automountServiceAccountToken: false
      enableServiceLinks: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ .terminationGracePeriodSeconds | default 30 | int }}
      {{- include "platform.scheduling" $sel | trim | nindent 6 }}
      containers:
        - name: {{ .component }}
          image: {{ include "platform.image" $root | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args:
            - {{ .component }}
            - --config=/etc/platform/config/config.yaml
            {{- range .svc.extraArgs }}
            - {{ . | quote }}
            {{- end }}
          {{- with .svc.extraEnv }}
          env:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with .ports }}
          ports:
            {{- . | nindent 12 }}
          {{- end }}
          {{- .probes | nindent 10 }}
          resources:
            {{- toYaml .svc.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: config
              mountPath: /etc/platform/config
              readOnly: true
            - name: tmp
              mountPath: /tmp
            {{- if and .nats (ne $root.Values.nats.auth.mode "none") }}
            - name: nats-auth
              mountPath: /etc/platform/nats-auth
              readOnly: true
            {{- end }}
            {{- if and .nats (include "platform.natsCA" $root) }}
            - name: nats-tls
              mountPath: /etc/platform/nats-tls
              readOnly: true
            {{- end }}
            {{- if and .nats (include "platform.natsClientCertSecret" $root) }}
            - name: nats-client
              mountPath: /etc/platform/nats-client
              readOnly: true
            {{- end }}
            {{- with .mounts }}
            {{- . | nindent 12 }}
            {{- end }}
      volumes:
        - name: config
          configMap:
            name: {{ include "platform.fullname" $root }}-{{ .component }}-config
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- if and .nats (ne $root.Values.nats.auth.mode "none") }}
        {{- /* This service's own password or credentials file only. */}}
        - name: nats-auth
          secret:
            secretName: {{ include "platform.natsAuthSecret" $root }}
            defaultMode: 288
            items:
              {{- if eq $root.Values.nats.auth.mode "users" }}
              - {key: {{ .component }}, path: password}
              {{- else }}
              - {key: {{ printf "%s.creds" .component }}, path: nats.creds}
              {{- end }}
        {{- end }}
        {{- if and .nats (include "platform.natsCA" $root) }}
        - name: nats-tls
          secret:
            secretName: {{ include "platform.fullname" $root }}-ca-bundles
            items:
              - {key: nats-ca.crt, path: ca.crt}
        {{- end }}
        {{- if and .nats (include "platform.natsClientCertSecret" $root) }}
        - name: nats-client
          secret:
            secretName: {{ include "platform.natsClientCertSecret" $root }}
            defaultMode: 288
            items:
              - {key: tls.crt, path: tls.crt}
              - {key: tls.key, path: tls.key}
        {{- end }}
        {{- with .volumes }}
        {{- . | nindent 8 }}
        {{- end }}
{{- end }}

{{/* A service's ConfigMap.  dict: root, component, config (rendered), extra (more keys, YAML) */}}
{{- define "platform.configMap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "platform.fullname" .root }}-{{ .component }}-config
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "platform.componentLabels" . | nindent 4 }}
data:
  config.yaml: |
    {{- .config | nindent 4 }}
  {{- with .extra }}
  {{- . | nindent 2 }}
  {{- end }}
{{- end }}

{{/* Values that cannot work together, refused before anything is installed. */}}
{{- define "platform.validate" -}}
{{- if and (include "platform.bundledNats" .) (gt (int .Values.storage.bucketReplicas) (int .Values.nats.bundled.replicas)) }}
{{- fail (printf "storage.bucketReplicas (%d) exceeds nats.bundled.replicas (%d): JetStream cannot place more replicas than it has servers" (int .Values.storage.bucketReplicas) (int .Values.nats.bundled.replicas)) }}
{{- end }}
{{- if ne (empty .Values.pki.ca.cert) (empty .Values.pki.ca.key) }}
{{- fail "pki.ca.cert and pki.ca.key go together" }}
{{- end }}
{{- if ne (empty .Values.pki.frontProxy.ca.cert) (empty .Values.pki.frontProxy.ca.key) }}
{{- fail "pki.frontProxy.ca.cert and pki.frontProxy.ca.key go together" }}
{{- end }}
{{- if ne (empty .Values.pki.serving.cert) (empty .Values.pki.serving.key) }}
{{- fail "pki.serving.cert and pki.serving.key go together" }}
{{- end }}
{{- if and .Values.pki.serving.existingSecret .Values.pki.serving.cert }}
{{- fail "give pki.serving.existingSecret or pki.serving.cert/key, not both" }}
{{- end }}
{{- if ne (empty .Values.authn.oidc.issuerURL) (empty .Values.authn.oidc.clientID) }}
{{- fail "authn.oidc.issuerURL and authn.oidc.clientID go together" }}
{{- end }}
{{- $auth := .Values.nats.auth }}
{{- if include "platform.bundledNats" . }}
{{- if ne $auth.mode "users" }}
{{- fail (printf "nats.auth.mode %s needs nats.url: the bundled NATS knows one user per service (mode users)" $auth.mode) }}
{{- end }}
{{- if .Values.nats.tls.clientCertSecret }}
{{- fail "nats.tls.clientCertSecret is for nats.url; the bundled NATS issues client certificates itself (nats.tls.verifyClients)" }}
{{- end }}
{{- else }}
{{- if and (ne $auth.mode "none") (not $auth.existingSecret) }}
{{- fail (printf "nats.auth.mode %s with nats.url needs nats.auth.existingSecret: the passwords or credentials that NATS knows" $auth.mode) }}
{{- end }}
{{- if .Values.nats.tls.verifyClients }}
{{- fail "nats.tls.verifyClients is for the bundled NATS; give nats.tls.clientCertSecret for nats.url" }}
{{- end }}
{{- end }}
{{- if and .Values.gateway.autoscaling.enabled (gt (int .Values.gateway.autoscaling.minReplicas) (int .Values.gateway.autoscaling.maxReplicas)) }}
{{- fail "gateway.autoscaling.minReplicas exceeds maxReplicas" }}
{{- end }}
{{- end }}

{{- /*
Whether anonymous requests are authenticated: authn.anonymousAuth, unless an authorization mode is
AlwaysAllow (upstream's kube-apiserver turns anonymous access off then; the gateway enforces it
whatever the flags say). "true" or "false".
*/ -}}
{{- define "platform.anonymousAuth" -}}
{{- and .Values.authn.anonymousAuth (not (has "AlwaysAllow" .Values.authz.authorizationMode)) -}}
{{- end }}
