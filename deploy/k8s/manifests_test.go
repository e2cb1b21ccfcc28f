// Package k8s holds teamtext's Kubernetes manifests; its test validates
// them without a cluster.
package k8s

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// Each manifest is decoded strictly into the Kubernetes API's own Go types
// (k8s.io/api, the types the API server's schema is generated from): an
// unknown or misspelt field, a wrong type or a bad quantity fails. Then the
// rules that keep the manifests consistent with each other and with the
// service are checked.

// decodeStrict reads one YAML document into v, refusing unknown fields.
func decodeStrict(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.False(t, bytes.Contains(b, []byte("\n---")), "%s: one object per file", file)
	require.NoError(t, yaml.UnmarshalStrict(b, v), file)
}

type manifests struct {
	deploy    appsv1.Deployment
	job       batchv1.Job
	svc       corev1.Service
	pdb       policyv1.PodDisruptionBudget
	config    corev1.ConfigMap
	secret    corev1.Secret
	kustomize struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Labels     []struct {
			Pairs map[string]string `json:"pairs"`
		} `json:"labels"`
		Resources []string `json:"resources"`
	}
}

func load(t *testing.T) *manifests {
	t.Helper()
	m := &manifests{}
	decodeStrict(t, "deployment.yaml", &m.deploy)
	decodeStrict(t, "migrate-job.yaml", &m.job)
	decodeStrict(t, "service.yaml", &m.svc)
	decodeStrict(t, "pdb.yaml", &m.pdb)
	decodeStrict(t, "configmap.yaml", &m.config)
	decodeStrict(t, "secret.yaml", &m.secret)
	decodeStrict(t, "kustomization.yaml", &m.kustomize)
	return m
}

func TestManifestsDecodeStrictly(t *testing.T) {
	t.Parallel()
	m := load(t)
	for _, tm := range []struct{ got, want string }{
		{m.deploy.APIVersion + " " + m.deploy.Kind, "apps/v1 Deployment"},
		{m.job.APIVersion + " " + m.job.Kind, "batch/v1 Job"},
		{m.svc.APIVersion + " " + m.svc.Kind, "v1 Service"},
		{m.pdb.APIVersion + " " + m.pdb.Kind, "policy/v1 PodDisruptionBudget"},
		{m.config.APIVersion + " " + m.config.Kind, "v1 ConfigMap"},
		{m.secret.APIVersion + " " + m.secret.Kind, "v1 Secret"},
		{m.kustomize.APIVersion + " " + m.kustomize.Kind, "kustomize.config.k8s.io/v1beta1 Kustomization"},
	} {
		require.Equal(t, tm.want, tm.got)
	}
	// Every YAML file here is listed in kustomization.yaml, but the Job
	// (whose spec cannot change once created: it is applied on its own).
	files, err := filepath.Glob("*.yaml")
	require.NoError(t, err)
	var want []string
	for _, f := range files {
		if f != "kustomization.yaml" && f != "migrate-job.yaml" {
			want = append(want, f)
		}
	}
	require.ElementsMatch(t, want, m.kustomize.Resources)
	// A typo in a field of a nested type is caught too.
	var d appsv1.Deployment
	require.Error(t, yaml.UnmarshalStrict([]byte("apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 2\n  strategy:\n    rollingUpdates: {}\n"), &d))
}

func TestDeploymentRules(t *testing.T) {
	t.Parallel()
	m := load(t)
	d := m.deploy
	pod := d.Spec.Template.Spec
	require.GreaterOrEqual(t, *d.Spec.Replicas, int32(2), "more than one replica: the PDB and rolling upgrades need it")
	sel, err := metav1LabelSelector(d.Spec.Selector.MatchLabels)
	require.NoError(t, err)
	require.True(t, sel.Matches(labels.Set(d.Spec.Template.Labels)), "the selector matches the pod template")
	require.True(t, labels.SelectorFromSet(m.svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)), "the Service selects the pods")
	require.True(t, labels.SelectorFromSet(m.pdb.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)), "the PDB covers the pods")
	require.Less(t, m.pdb.Spec.MinAvailable.IntValue(), int(*d.Spec.Replicas), "the PDB lets a node drain")
	require.Zero(t, d.Spec.Strategy.RollingUpdate.MaxUnavailable.IntValue(), "a rollout never goes below the replica count")

	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	require.Equal(t, []string{"serve"}, c.Args)
	require.True(t, *pod.SecurityContext.RunAsNonRoot)
	require.EqualValues(t, 65532, *pod.SecurityContext.RunAsUser, "the image's user")
	require.True(t, *c.SecurityContext.ReadOnlyRootFilesystem, "the service writes no file")
	require.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	require.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
	require.NotNil(t, c.StartupProbe)

	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	require.Equal(t, ":"+itoa(ports["http"]), m.config.Data["ADDR"])
	require.Equal(t, ":"+itoa(ports["admin"]), m.config.Data["ADMIN_ADDR"])
	require.Equal(t, "http", c.ReadinessProbe.HTTPGet.Port.String())

	// Requests and limits set; the memory request covers the measured
	// loaded RSS (docs/BENCHMARKS-HISTORY.md, "Deployment") and the limit leaves headroom.
	req, lim := c.Resources.Requests, c.Resources.Limits
	require.False(t, req.Cpu().IsZero())
	require.GreaterOrEqual(t, req.Memory().Cmp(resource.MustParse("64Mi")), 0)
	require.Greater(t, lim.Memory().Cmp(*req.Memory()), 0)

	// Draining: readiness must fail (period × threshold) before the drain
	// delay ends, and the grace period must cover drain + graceful stop.
	drain := durationSeconds(t, m.config.Data["SHUTDOWN_DRAIN_DELAY"])
	stop := durationSeconds(t, m.config.Data["SHUTDOWN_TIMEOUT"])
	rp := c.ReadinessProbe
	require.Less(t, int64(rp.PeriodSeconds*rp.FailureThreshold), drain, "the readiness probe sees the 503 before the listeners close")
	require.Greater(t, *pod.TerminationGracePeriodSeconds, drain+stop)

	// Configuration from the ConfigMap and the Secret; secrets only in the Secret.
	var refs []string
	for _, e := range c.EnvFrom {
		switch {
		case e.ConfigMapRef != nil:
			refs = append(refs, "configmap:"+e.ConfigMapRef.Name)
		case e.SecretRef != nil:
			refs = append(refs, "secret:"+e.SecretRef.Name)
		}
	}
	require.ElementsMatch(t, []string{"configmap:" + m.config.Name, "secret:" + m.secret.Name}, refs)
	for _, k := range []string{"DATABASE_URL", "ADMIN_TOKEN", "TWILIO_AUTH_TOKEN"} {
		require.Contains(t, m.secret.StringData, k)
		require.NotContains(t, m.config.Data, k, "secrets stay out of the ConfigMap")
	}
	require.GreaterOrEqual(t, len(m.secret.StringData["ADMIN_TOKEN"]), 16, "the placeholder passes the service's own check")
}

func TestMigrationJob(t *testing.T) {
	t.Parallel()
	m := load(t)
	pod := m.job.Spec.Template.Spec
	require.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	require.Equal(t, []string{"migrate"}, c.Args)
	require.Equal(t, m.deploy.Spec.Template.Spec.Containers[0].Image, c.Image, "the Job migrates to the version the Deployment runs")
	require.Len(t, c.Env, 1)
	require.Equal(t, "DATABASE_URL", c.Env[0].Name)
	require.Equal(t, m.secret.Name, c.Env[0].ValueFrom.SecretKeyRef.Name)
	require.NotNil(t, m.job.Spec.ActiveDeadlineSeconds)
}

func metav1LabelSelector(ml map[string]string) (labels.Selector, error) {
	if len(ml) == 0 {
		return labels.Nothing(), nil
	}
	return labels.SelectorFromSet(ml), nil
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

func durationSeconds(t *testing.T, s string) int64 {
	t.Helper()
	d, err := time.ParseDuration(s)
	require.NoError(t, err, s)
	return int64(d / time.Second)
}
