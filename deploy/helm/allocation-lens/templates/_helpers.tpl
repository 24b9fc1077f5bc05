{{/* Names and labels. */}}
{{- define "allocation-lens.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "allocation-lens.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "allocation-lens.selectorLabels" -}}
app.kubernetes.io/name: {{ include "allocation-lens.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: dashboard
{{- end -}}

{{- define "allocation-lens.labels" -}}
{{ include "allocation-lens.selectorLabels" . }}
app.kubernetes.io/part-of: allocation-lens
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{- define "allocation-lens.serviceAccountName" -}}
{{- default (include "allocation-lens.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "allocation-lens.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Every container's: non-root, read-only root filesystem, no privilege escalation, no capabilities, RuntimeDefault seccomp. */}}
{{- define "allocation-lens.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsGroup }}
allowPrivilegeEscalation: false
privileged: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Where a Secret named by the values is mounted in the dashboard's container. */}}
{{- define "allocation-lens.secretDir" -}}
{{- printf "/etc/allocation-lens/secrets/%s" . -}}
{{- end -}}

{{- define "allocation-lens.proxyEnabled" -}}
{{- if and (eq .Values.auth.mode "proxy") .Values.auth.proxy.oauth2Proxy.enabled -}}true{{- end -}}
{{- end -}}

{{/* The namespaces of the collectors of every Target Allocator, sorted, each once (a JSON list). */}}
{{- define "allocation-lens.collectorNamespaces" -}}
{{- $ns := list -}}
{{- range .Values.clusters -}}
{{- range $role, $ta := .targetAllocators -}}
{{- if $ta -}}{{- $ns = append $ns $ta.collectors.namespace -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- $ns | uniq | sortAlpha | toJson -}}
{{- end -}}

{{/* The Secrets the dashboard's container mounts (besides the tokens), each once (a JSON list of names). */}}
{{- define "allocation-lens.secretNames" -}}
{{- $names := list -}}
{{- range .Values.clusters -}}
{{- range $role, $ta := .targetAllocators -}}
{{- if and $ta $ta.tls $ta.tls.enabled -}}{{- $names = append $names (default $.Values.taTls.secretName $ta.tls.secretName) -}}{{- end -}}
{{- if and $ta $ta.bearerToken $ta.bearerToken.secretName -}}{{- $names = append $names $ta.bearerToken.secretName -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- range $block := list .Values.history.prometheus .Values.fleet -}}
{{- if $block.enabled -}}
{{- if $block.tls.secretName -}}{{- $names = append $names $block.tls.secretName -}}{{- end -}}
{{- if $block.bearerToken.secretName -}}{{- $names = append $names $block.bearerToken.secretName -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- if gt (int .Values.replicaCount) 1 -}}{{- $names = append $names .Values.lease.peerToken.secretName -}}{{- end -}}
{{- $names | uniq | sortAlpha | toJson -}}
{{- end -}}

{{/*
The `tls` block of the configuration for a Secret: (dict "secretName" S "caKey" K "certKey" K "keyKey" K "serverName" N
"insecureSkipVerify" B), as a JSON map of file paths.
*/}}
{{- define "allocation-lens.tlsConfig" -}}
{{- $dir := include "allocation-lens.secretDir" .secretName -}}
{{- $tls := dict -}}
{{- if .caKey -}}{{- $_ := set $tls "ca" (printf "%s/%s" $dir .caKey) -}}{{- end -}}
{{- if and .certKey .keyKey -}}
{{- $_ := set $tls "cert" (printf "%s/%s" $dir .certKey) -}}
{{- $_ := set $tls "key" (printf "%s/%s" $dir .keyKey) -}}
{{- end -}}
{{- if .serverName -}}{{- $_ := set $tls "serverName" .serverName -}}{{- end -}}
{{- if .insecureSkipVerify -}}{{- $_ := set $tls "insecureSkipVerify" true -}}{{- end -}}
{{- $tls | toJson -}}
{{- end -}}

{{/* A query endpoint's block (history.prometheus, fleet): url, tls, bearerTokenFile, matchers; a JSON map. */}}
{{- define "allocation-lens.queryEndpoint" -}}
{{- $e := dict "url" .url -}}
{{- if .tls.secretName -}}
{{- $_ := set $e "tls" (include "allocation-lens.tlsConfig" .tls | fromJson) -}}
{{- end -}}
{{- if .bearerToken.secretName -}}
{{- $_ := set $e "bearerTokenFile" (printf "%s/%s" (include "allocation-lens.secretDir" .bearerToken.secretName) .bearerToken.key) -}}
{{- end -}}
{{- if .matchers -}}{{- $_ := set $e "matchers" .matchers -}}{{- end -}}
{{- $e | toJson -}}
{{- end -}}

{{- define "allocation-lens.checks" -}}
{{- if and (eq .Values.auth.mode "none") (not .Values.auth.allowAnonymous) -}}
{{- fail "auth.mode: none serves everyone who reaches the pod: set auth.mode to token or proxy, or auth.allowAnonymous: true if something else restricts who reaches it" -}}
{{- end -}}
{{- if and (eq .Values.auth.mode "none") (or .Values.ingress.enabled .Values.httpRoute.enabled) -}}
{{- fail "auth.mode: none with ingress.enabled or httpRoute.enabled would publish the dashboard anonymously: use auth.mode token or proxy" -}}
{{- end -}}
{{- if and (eq .Values.auth.mode "proxy") (not .Values.auth.proxy.oauth2Proxy.enabled) (not .Values.auth.proxy.trustedProxies) -}}
{{- fail "auth.proxy.trustedProxies: auth.mode proxy needs the authenticating proxy's addresses (or auth.proxy.oauth2Proxy.enabled: true)" -}}
{{- end -}}
{{- if and (gt (int .Values.replicaCount) 1) (eq .Values.history.persistence.type "pvc") -}}
{{- fail "history.persistence.type: pvc holds one replica's SQLite file; with replicaCount > 1 use emptyDir (and history.prometheus for long ranges)" -}}
{{- end -}}
{{- if and .Values.taTls.certManager.enabled (not .Values.taTls.certManager.issuerRef.name) -}}
{{- fail "taTls.certManager.issuerRef.name: the cert-manager Issuer of the CA the Target Allocators trust for clients" -}}
{{- end -}}
{{- if and .Values.httpRoute.enabled (not .Values.httpRoute.parentRefs) -}}
{{- fail "httpRoute.parentRefs: the Gateway (name, namespace, sectionName) the HTTPRoute attaches to" -}}
{{- end -}}
{{- end -}}

{{/* The dashboard's URL for the alerts' dashboard_url: alerts.dashboardBaseUrl, else the Ingress or HTTPRoute host, else the in-cluster Service; basePath included. */}}
{{- define "allocation-lens.alertsDashboardUrl" -}}
{{- if .Values.alerts.dashboardBaseUrl -}}
{{- .Values.alerts.dashboardBaseUrl | trimSuffix "/" -}}
{{- else if .Values.ingress.enabled -}}
{{- printf "%s://%s%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host .Values.basePath -}}
{{- else if and .Values.httpRoute.enabled .Values.httpRoute.hostnames -}}
{{- printf "https://%s%s" (first .Values.httpRoute.hostnames) .Values.basePath -}}
{{- else -}}
{{- printf "http://%s.%s.svc:%v%s" (include "allocation-lens.fullname" .) .Release.Namespace .Values.service.port .Values.basePath -}}
{{- end -}}
{{- end -}}
