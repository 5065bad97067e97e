{{/*
The prefix of every name: the release's, so that `helm install nodepool` names the
objects as config/default's namePrefix does (nodepool-controller-manager, ...).
*/}}
{{- define "nodepool.prefix" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end }}

{{/* The labels of every object: which chart and release made it. */}}
{{- define "nodepool.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* What picks the manager's pods: the Deployment, the PDB and the Services. */}}
{{- define "nodepool.selector" -}}
app.kubernetes.io/name: nodepool-manager
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The manager's ServiceAccount, which every binding names. */}}
{{- define "nodepool.serviceAccount" -}}
{{ include "nodepool.prefix" . }}-controller-manager
{{- end }}

{{/* The Secret of the webhook server's certificate, issued or made by hand. */}}
{{- define "nodepool.certSecret" -}}
{{ include "nodepool.prefix" . }}-webhook-server-cert
{{- end }}

{{/*
nodepool.generated KIND reads files/role.yaml or files/webhooks.yaml, which
controller-gen wrote (make generate copies them): the first object of KIND in it.
*/}}
{{- define "nodepool.generated" -}}
{{- $kind := index . 1 -}}
{{- $found := dict -}}
{{- range regexSplit "(?m)^---[ \t]*$" ((index . 0).Files.Get (index . 2)) -1 -}}
{{- $doc := fromYaml . -}}
{{- if and (eq (get $doc "kind") $kind) (not $found) -}}
{{- $found = $doc -}}
{{- end -}}
{{- end -}}
{{- if not $found -}}
{{- fail (printf "%s has no %s: run make generate" (index . 2) $kind) -}}
{{- end -}}
{{- toJson $found -}}
{{- end }}
