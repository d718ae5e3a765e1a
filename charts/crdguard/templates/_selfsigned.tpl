{{/* tls.mode selfSigned: the webhook issues, rotates and serves its own certificate. */}}

{{/* The Secret the webhook keeps its CAs and serving certificate in; it creates it. */}}
{{- define "crdguard.selfSignedSecretName" -}}
{{- printf "%s-self-signed-tls" (include "crdguard.fullname" .) }}
{{- end }}

{{/* The names the serving certificate is for, comma-separated: the webhook Service's. */}}
{{- define "crdguard.servingDNSNames" -}}
{{- $svc := printf "%s.%s.svc" (include "crdguard.serviceName" .) .Release.Namespace }}
{{- $svc }},{{ $svc }}.{{ .Values.clusterDomain }}
{{- end }}


{{/*
The CA bundle the webhook last published (its Secret's ca.crt, already
base64), so that a helm upgrade renders the configurations with the bundle
they hold instead of resetting it. Empty on first install and under helm
template: the webhook injects it then.
*/}}
{{- define "crdguard.selfSignedCABundle" -}}
{{- if eq .Values.tls.mode "selfSigned" }}
{{- dig "data" "ca.crt" "" (lookup "v1" "Secret" .Release.Namespace (include "crdguard.selfSignedSecretName" .)) }}
{{- end }}
{{- end }}
