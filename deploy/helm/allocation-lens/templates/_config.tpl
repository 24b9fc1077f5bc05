{{/* The dashboard's config.yaml (README, Configuration), built from the values; validated by the dashboard at start. */}}
{{- define "allocation-lens.config" -}}
{{- $v := .Values -}}
{{- $clusters := list -}}
{{- range $v.clusters -}}
{{- $tas := dict -}}
{{- range $role, $ta := .targetAllocators -}}
{{- if $ta -}}
{{- $t := dict "url" $ta.url "flavor" $ta.flavor "collectors" (dict "namespace" $ta.collectors.namespace "selector" $ta.collectors.selector) -}}
{{- if and $ta.tls $ta.tls.enabled -}}
{{- $tls := dict "secretName" (default $v.taTls.secretName $ta.tls.secretName) "caKey" (ternary $ta.tls.caKey $v.taTls.caKey (hasKey $ta.tls "caKey")) "certKey" (default $v.taTls.certKey $ta.tls.certKey) "keyKey" (default $v.taTls.keyKey $ta.tls.keyKey) "serverName" $ta.tls.serverName "insecureSkipVerify" $ta.tls.insecureSkipVerify -}}
{{- $_ := set $t "tls" (include "allocation-lens.tlsConfig" $tls | fromJson) -}}
{{- end -}}
{{- if and $ta.bearerToken $ta.bearerToken.secretName -}}
{{- $_ := set $t "bearerTokenFile" (printf "%s/%s" (include "allocation-lens.secretDir" $ta.bearerToken.secretName) (default "token" $ta.bearerToken.key)) -}}
{{- end -}}
{{- range $k := list "timeoutSeconds" "concurrency" "pollTimeoutSeconds" "maxResponseBytes" "maxBytesPerPoll" "maxJobs" "strategy" "fallbackStrategy" -}}
{{- if hasKey $ta $k -}}{{- $_ := set $t $k (get $ta $k) -}}{{- end -}}
{{- end -}}
{{- $_ := set $tas $role $t -}}
{{- end -}}
{{- end -}}
{{- $c := dict "name" .name "kubernetes" (dict "inCluster" true) "pollIntervalSeconds" (default 15 .pollIntervalSeconds) "targetAllocators" $tas -}}
{{- if .scraperAnnotation -}}{{- $_ := set $c "scraperAnnotation" .scraperAnnotation -}}{{- end -}}
{{- $clusters = append $clusters $c -}}
{{- end -}}
{{- $history := dict "path" "/data/history.sqlite" "retentionDays" $v.history.retentionDays "maxBytes" $v.history.maxBytes -}}
{{- if $v.history.prometheus.enabled -}}
{{- $p := include "allocation-lens.queryEndpoint" $v.history.prometheus | fromJson -}}
{{- $_ := set $p "timeoutSeconds" $v.history.prometheus.timeoutSeconds -}}
{{- if $v.history.prometheus.headers -}}{{- $_ := set $p "headers" $v.history.prometheus.headers -}}{{- end -}}
{{- $_ := set $history "prometheus" $p -}}
{{- end -}}
{{- $auth := dict "mode" $v.auth.mode "exemptPaths" $v.auth.exemptPaths -}}
{{- if eq $v.auth.mode "token" -}}
{{- $_ := set $auth "tokenFile" (printf "/etc/allocation-lens/tokens/%s" $v.auth.token.key) -}}
{{- else if eq $v.auth.mode "proxy" -}}
{{- $_ := set $auth "trustedProxies" (ternary (list "127.0.0.1/32") $v.auth.proxy.trustedProxies $v.auth.proxy.oauth2Proxy.enabled) -}}
{{- $_ := set $auth "userHeaders" $v.auth.proxy.userHeaders -}}
{{- else if $v.auth.allowAnonymous -}}
{{- $_ := set $auth "allowAnonymous" true -}}
{{- end -}}
{{- $config := dict "clusters" $clusters "history" $history "auth" $auth "embed" (dict "frameAncestors" $v.embed.frameAncestors) -}}
{{- if $v.server -}}{{- $_ := set $config "server" $v.server -}}{{- end -}}
{{- $alerts := dict "runbookBaseUrl" $v.alerts.runbookBaseUrl -}}
{{- range $k := list "localityMin" "flappingPerHour" "flappingWindow" "ringHeadroomWarning" "unassignedFor" "pollLateIntervals" -}}
{{- $_ := set $alerts $k (get $v.alerts $k) -}}
{{- end -}}
{{- $_ := set $config "alerts" $alerts -}}
{{- if gt (int $v.replicaCount) 1 -}}
{{- $lease := dict "namespace" .Release.Namespace "peerTokenFile" (printf "%s/%s" (include "allocation-lens.secretDir" $v.lease.peerToken.secretName) $v.lease.peerToken.key) -}}
{{- if $v.lease.durationSeconds -}}{{- $_ := set $lease "durationSeconds" $v.lease.durationSeconds -}}{{- end -}}
{{- if $v.lease.renewSeconds -}}{{- $_ := set $lease "renewSeconds" $v.lease.renewSeconds -}}{{- end -}}
{{- $_ := set $config "lease" $lease -}}
{{- end -}}
{{- if $v.fleet.enabled -}}
{{- $f := dict "prometheus" (include "allocation-lens.queryEndpoint" $v.fleet | fromJson) -}}
{{- if $v.fleet.dashboardUrlTemplate -}}{{- $_ := set $f "dashboardUrl" $v.fleet.dashboardUrlTemplate -}}{{- end -}}
{{- $_ := set $config "fleet" $f -}}
{{- end -}}
{{- toYaml $config -}}
{{- end -}}
