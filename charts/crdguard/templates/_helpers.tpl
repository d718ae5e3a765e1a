{{- define "crdguard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "crdguard.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "crdguard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "crdguard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "crdguard.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "crdguard.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "crdguard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "crdguard.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The webhook Service, whose DNS names the serving certificate carries. */}}
{{- define "crdguard.serviceName" -}}
{{- include "crdguard.fullname" . }}
{{- end }}

{{- define "crdguard.servingCertName" -}}
{{- printf "%s-serving" (include "crdguard.fullname" .) }}
{{- end }}

{{- define "crdguard.servingSecretName" -}}
{{- printf "%s-serving-cert" (include "crdguard.fullname" .) }}
{{- end }}

{{/* cert-manager.io/inject-ca-from on both webhook configurations. */}}
{{- define "crdguard.injectCA" -}}
cert-manager.io/inject-ca-from: {{ printf "%s/%s" .Release.Namespace (include "crdguard.servingCertName" .) }}
{{- end }}

{{/* Always exempts kube-system, the release namespace and crdguard.dev/ignore. */}}
{{- define "crdguard.namespaceSelector" -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values:
        {{- toYaml (uniq (concat (list "kube-system" .Release.Namespace) .Values.webhook.exemptNamespaces)) | nindent 8 }}
    - key: crdguard.dev/ignore
      operator: DoesNotExist
    {{- with .Values.webhook.namespaceSelectorExpressions }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{- define "crdguard.clientConfig" -}}
clientConfig:
  service:
    name: {{ include "crdguard.serviceName" .root }}
    namespace: {{ .root.Release.Namespace }}
    path: {{ .path }}
    port: 443
  {{- with include "crdguard.selfSignedCABundle" .root }}
  caBundle: {{ . }}
  {{- end }}
{{- end }}

{{/* Settings shared by every webhook. */}}
{{- define "crdguard.webhookCommon" -}}
admissionReviewVersions: ["v1"]
sideEffects: None
matchPolicy: Equivalent
failurePolicy: {{ .Values.webhook.failurePolicy }}
timeoutSeconds: {{ .Values.webhook.timeoutSeconds }}
{{- end }}

{{/* The rules of a webhook, from a list of webhook.rules items. */}}
{{- define "crdguard.rules" -}}
{{- if . }}
rules:
{{- range . }}
  - apiGroups: {{ toJson .apiGroups }}
    apiVersions: {{ toJson .apiVersions }}
    resources: {{ toJson .resources }}
    operations: {{ toJson (default (list "CREATE" "UPDATE") .operations) }}
    scope: {{ default "*" .scope | quote }}
{{- end }}
{{- else }}
rules: []
{{- end }}
{{- end }}

{{/* The rules of mutate.crdguard.dev: mutateRules, or rules when null. */}}
{{- define "crdguard.mutateRules" -}}
{{- if kindIs "invalid" .Values.webhook.mutateRules }}
{{- include "crdguard.rules" .Values.webhook.rules }}
{{- else }}
{{- include "crdguard.rules" .Values.webhook.mutateRules }}
{{- end }}
{{- end }}

{{/* Whether the chart renders the MutatingWebhookConfiguration. */}}
{{- define "crdguard.mutating" -}}
{{- if and .Values.webhook.mutate (or .Values.webhook.rules .Values.webhook.manageRules) }}true{{ end }}
{{- end }}

{{/*
The rules of the webhook named .webhook in the live configuration of kind
.kind, with webhook.manageRules: the rules crdguard wrote, so that a helm
upgrade renders them instead of resetting them. Otherwise, and when the
configuration or the webhook does not exist (a first install, helm
template), .fallback: the rules of the values.
*/}}
{{- define "crdguard.managedRules" -}}
{{- $live := "" }}
{{- if .root.Values.webhook.manageRules }}
{{- range dig "webhooks" list (lookup "admissionregistration.k8s.io/v1" .kind "" (include "crdguard.fullname" .root)) }}
{{- if eq .name $.webhook }}{{ $live = toJson (default list .rules) }}{{ end }}
{{- end }}
{{- end }}
{{- if $live -}}
rules: {{ $live }}
{{- else -}}
{{ .fallback | trim }}
{{- end }}
{{- end }}

{{/* Whether a replica is elected: the background audit or the managed rules. */}}
{{- define "crdguard.leaderElection" -}}
{{- if or .Values.audit.enabled .Values.webhook.manageRules .Values.webhook.policyStatus }}true{{ end }}
{{- end }}

{{/*
The elected replica renews its Lease within two thirds of the lease
duration; a request no longer than timeoutSeconds must not outlast it.
*/}}
{{- define "crdguard.checkLease" -}}
{{- if and (include "crdguard.leaderElection" .) (ge (int .Values.webhook.timeoutSeconds) (int .Values.leaderElection.leaseDurationSeconds)) }}
{{- fail (printf "webhook.timeoutSeconds (%d) must be below leaderElection.leaseDurationSeconds (%d) with webhook.manageRules, webhook.policyStatus or audit.enabled" (int .Values.webhook.timeoutSeconds) (int .Values.leaderElection.leaseDurationSeconds)) }}
{{- end }}
{{- end }}

{{/* The metrics port's name: https-metrics with --metrics-secure. */}}
{{- define "crdguard.metricsPortName" -}}
{{- if .Values.metrics.secure }}https-metrics{{ else }}http-metrics{{ end -}}
{{- end }}
