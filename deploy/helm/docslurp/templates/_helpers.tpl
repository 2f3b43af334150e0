{{- define "docslurp.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "docslurp.fullname" -}}
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

{{- define "docslurp.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "docslurp.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component: server, worker or migrate. */}}
{{- define "docslurp.selector" -}}
app.kubernetes.io/name: {{ include "docslurp.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "docslurp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "docslurp.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "docslurp.secretName" -}}
{{- required "existingSecret is required: the name of a Secret that holds at least DATABASE_URL (see values.yaml)" .Values.existingSecret -}}
{{- end -}}

{{/* Keys of existingSecret passed as environment variables; only DATABASE_URL must be there. */}}
{{- define "docslurp.secretKeys" -}}
{{- list "MIGRATE_DATABASE_URL" "WORKFLOW_DATABASE_URL" "AWS_ACCESS_KEY_ID" "AWS_SECRET_ACCESS_KEY" "ENCRYPTION_KEY" "ENCRYPTION_KEY_PREVIOUS" "METRICS_SECRET" "SERVICE_BOOTSTRAP_API_KEY" "CONSOLE_ADMIN_EMAIL" "CONSOLE_ADMIN_PASSWORD" "REDIS_URL" "EMBEDDINGS_API_KEY" "RERANK_API_KEY" "LLM_API_KEY" "OIDC_CLIENT_SECRET" | toJson -}}
{{- end -}}

{{/*
The environment of every DocSlurp container: the settings in .Values.config that are set (an empty
value leaves the service's default), then the secret's keys by reference (never their values).
*/}}
{{- define "docslurp.env" -}}
- name: NODE_ENV
  value: production
- name: DATA_DIR
  value: /data
{{- range $name, $value := .Values.config }}
{{- if ne (toString $value) "" }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "docslurp.secretName" . }}
      key: DATABASE_URL
{{- range $key := include "docslurp.secretKeys" . | fromJsonArray }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "docslurp.secretName" $ }}
      key: {{ $key }}
      optional: true
{{- end }}
{{- end -}}

{{- define "docslurp.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) -}}
{{- end -}}

{{/*
A pod's two temporary volumes, /tmp and /data (DATA_DIR), each with a size limit (dict: tmp, data).
Without one, a volume may fill the node's disk: a file of any size written there is the node's
problem, not the pod's. With one, the kubelet evicts the pod whose volume outgrows it.
*/}}
{{- define "docslurp.volumes" -}}
- name: tmp
  emptyDir: { sizeLimit: {{ .tmp | quote }} }
- name: data
  emptyDir: { sizeLimit: {{ .data | quote }} }
{{- end -}}

{{/*
The worker's /tmp limit: worker.sizeLimits.tmp, or what its batches can hold at once. Each batch in
flight (WORKER_DOC_CONCURRENCY) keeps a copy of the document being parsed and of the next one, each
up to the larger of UPLOAD_MAX_FILE_BYTES and URL_FETCH_MAX_BYTES (the service's defaults when
unset), plus 512 MiB for the rest. Derived from the settings so that raising a limit there cannot
get workers evicted mid-batch.
*/}}
{{- define "docslurp.workerTmpSizeLimit" -}}
{{- if .Values.worker.sizeLimits.tmp -}}
{{- .Values.worker.sizeLimits.tmp -}}
{{- else -}}
{{- $c := .Values.config -}}
{{- $concurrency := int64 (default 1 $c.WORKER_DOC_CONCURRENCY) -}}
{{- $upload := int64 (default 536870912 $c.UPLOAD_MAX_FILE_BYTES) -}}
{{- $largest := max $upload (int64 (default $upload $c.URL_FETCH_MAX_BYTES)) -}}
{{- $mib := div (add (mul $concurrency 2 $largest) 1048575) 1048576 -}}
{{- printf "%dMi" (add $mib 512) -}}
{{- end -}}
{{- end -}}

{{/*
Egress rules of one component's NetworkPolicy (dict: np, the networkPolicy values; names, the
entries of np.egress it needs; extra, further rules; internet, whether public addresses are open).
An entry set to null is left out; one without `to` allows its ports to any address.
*/}}
{{- define "docslurp.egressRules" -}}
{{- $rules := list -}}
{{- range $name := .names -}}
{{- with index $.np.egress $name -}}
{{- $rule := dict -}}
{{- with .to }}{{ $_ := set $rule "to" . }}{{ end -}}
{{- with .ports }}{{ $_ := set $rule "ports" . }}{{ end -}}
{{- $rules = append $rules $rule -}}
{{- end -}}
{{- end -}}
{{- $rules = concat $rules .extra -}}
{{- if .internet -}}
{{- $v4 := dict "ipBlock" (dict "cidr" "0.0.0.0/0" "except" $.np.internet.except) -}}
{{- $v6 := dict "ipBlock" (dict "cidr" "::/0" "except" $.np.internet.exceptIPv6) -}}
{{- $rules = append $rules (dict "to" (list $v4 $v6)) -}}
{{- end -}}
{{- toYaml $rules -}}
{{- end -}}

{{/*
The worker's sandbox profile (worker.sandbox.profile) as JSON: hostUsers when it sets it, the
PARSER_ISOLATION it runs with, and the fields of its pod and container security contexts, which
worker.podSecurityContext and worker.securityContext may override.
  userns: bubblewrap unshares every namespace and mounts a fresh /proc, which the runtime's default
    seccomp and AppArmor profiles and a masked /proc forbid; an unmasked /proc is allowed only to a
    pod in a user namespace of its own. Pod Security "privileged".
  restricted: nothing bubblewrap needs (Pod Security "restricted"), so no sandbox: plain processes.
*/}}
{{- define "docslurp.workerProfile" -}}
{{- $profile := .Values.worker.sandbox.profile -}}
{{- if eq $profile "userns" -}}
{{- $unconfined := dict "type" "Unconfined" -}}
{{- toJson (dict "hostUsers" false "isolation" "required" "pod" (dict "seccompProfile" $unconfined) "container" (dict "seccompProfile" $unconfined "appArmorProfile" $unconfined "procMount" "Unmasked")) -}}
{{- else if eq $profile "restricted" -}}
{{- $default := dict "type" "RuntimeDefault" -}}
{{- toJson (dict "isolation" "process" "pod" (dict "seccompProfile" $default) "container" (dict "seccompProfile" $default)) -}}
{{- else -}}
{{- fail (printf "worker.sandbox.profile must be userns or restricted, not %q" (toString $profile)) -}}
{{- end -}}
{{- end -}}

{{/*
A component's topologySpreadConstraints (dict: root, component, constraints): each entry without a
labelSelector selects the component's pods, and without matchLabelKeys counts pod-template-hash, so
that during a rollout the new ReplicaSet's pods are spread among themselves.
*/}}
{{- define "docslurp.topologySpread" -}}
{{- $selector := include "docslurp.selector" (dict "root" .root "component" .component) | fromYaml -}}
{{- $constraints := list -}}
{{- range .constraints -}}
{{- $c := deepCopy . -}}
{{- if not (hasKey $c "labelSelector") -}}
{{- $_ := set $c "labelSelector" (dict "matchLabels" $selector) -}}
{{- end -}}
{{- if not (hasKey $c "matchLabelKeys") -}}
{{- $_ := set $c "matchLabelKeys" (list "pod-template-hash") -}}
{{- end -}}
{{- $constraints = append $constraints $c -}}
{{- end -}}
{{- toYaml $constraints -}}
{{- end -}}

{{/*
The annotations of the server's and the workers' pods: podAnnotations (dict: root, annotations) and,
with secretRevision, docslurp/secret-revision, whose change rolls the pods after the Secret changed
(the chart does not own the Secret, so Helm would see no change). "lookup" takes the Secret's
resourceVersion from the cluster: a version number, nothing derived from the secret's values.
*/}}
{{- define "docslurp.podAnnotations" -}}
{{- $annotations := deepCopy (default (dict) .annotations) -}}
{{- $revision := toString (default "" .root.Values.secretRevision) -}}
{{- if eq $revision "lookup" -}}
{{- $secret := lookup "v1" "Secret" .root.Release.Namespace (include "docslurp.secretName" .root) -}}
{{- if not $secret -}}
{{- fail (printf "secretRevision=lookup: the Secret %s was not found in namespace %s (helm template and --dry-run=client cannot read the cluster: pass the revision instead, see values.yaml)" (include "docslurp.secretName" .root) .root.Release.Namespace) -}}
{{- end -}}
{{- $revision = $secret.metadata.resourceVersion -}}
{{- end -}}
{{- if $revision -}}
{{- $_ := set $annotations "docslurp/secret-revision" $revision -}}
{{- end -}}
{{- if $annotations -}}
{{- toYaml $annotations -}}
{{- end -}}
{{- end -}}
