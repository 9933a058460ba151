{{/* The chart's name, and the release's full name (both at most 63 characters). */}}
{{- define "errkb.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "errkb.fullname" -}}
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

{{- define "errkb.selectorLabels" -}}
app.kubernetes.io/name: {{ include "errkb.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "errkb.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "errkb.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The Secret passed as environment variables: the operator's, or the chart's own. */}}
{{- define "errkb.secretName" -}}
{{- default (include "errkb.fullname" .) .Values.existingSecret }}
{{- end }}

{{/* The Secret that holds DATABASE_URL, and its key. */}}
{{- define "errkb.databaseSecretName" -}}
{{- if .Values.database.existingSecret }}
{{- .Values.database.existingSecret }}
{{- else }}
{{- include "errkb.secretName" . }}
{{- end }}
{{- end }}

{{- define "errkb.databaseSecretKey" -}}
{{- if .Values.database.existingSecret }}
{{- default "DATABASE_URL" .Values.database.existingSecretKey }}
{{- else }}
{{- print "DATABASE_URL" }}
{{- end }}
{{- end }}

{{/* Refuse settings that cannot work, with the value to change. */}}
{{- define "errkb.validate" -}}
{{- if not (or .Values.database.url .Values.database.existingSecret .Values.existingSecret) }}
{{- fail "errkb needs PostgreSQL: set database.url, database.existingSecret, or existingSecret with a DATABASE_URL key (replicas share one store; SQLite on a pod's disk is lost with the pod)" }}
{{- end }}
{{- if not .Values.existingSecret }}
{{- if not (or .Values.secrets.SLACK_BOT_TOKEN (and .Values.slack.clientId .Values.secrets.SLACK_CLIENT_SECRET)) }}
{{- fail "errkb needs Slack credentials: set existingSecret, or secrets.SLACK_BOT_TOKEN (one workspace), or slack.clientId with secrets.SLACK_CLIENT_SECRET and secrets.ERRKB_ENCRYPTION_KEY (OAuth)" }}
{{- end }}
{{- end }}
{{- if ge (float64 .Values.shutdownGraceSeconds) (float64 .Values.terminationGracePeriodSeconds) }}
{{- fail (printf "shutdownGraceSeconds (%v) must be under terminationGracePeriodSeconds (%v): Kubernetes kills the pod then" .Values.shutdownGraceSeconds .Values.terminationGracePeriodSeconds) }}
{{- end }}
{{- end }}
