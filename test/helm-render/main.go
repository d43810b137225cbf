// A stand-in for `helm template`, used only by the chart's tests (there is no helm binary here):
// Go's text/template with sprig's functions plus what Helm adds (include, tpl, toYaml, fromYaml,
// fromYamlArray, toJson, fromJson, fromJsonArray, required, lookup) and `.Files.Get` (the chart's
// files as .helmignore leaves them), values merged as Helm merges them (the chart's values.yaml,
// then each -f file; maps merge, null removes a default), values parsed as Helm parses them
// (through JSON, so every number is a float64 and a large one must be piped through `int` before
// printing), and the output of `helm template`: documents ordered by kind as Helm installs them,
// each headed by `# Source: <chart>/templates/<file>`.
//
//	helm-render --chart DIR [--name platform] [--namespace default] [-f values.yaml ...]
//	            [--existing objects.yaml] [--values-json | --notes]
//
// --values-json prints the merged values instead of manifests (what Helm checks against
// values.schema.json); --notes prints templates/NOTES.txt as `helm install` shows it.
// --existing names manifests standing for the cluster's objects, which `lookup` then finds (as
// on `helm upgrade`); without it `lookup` finds nothing, as `helm template` and a first install. A template error or a `required`/`fail` exits 1 with Helm's message.
//
// Built from Debian's packages (golang-go, golang-github-masterminds-sprig-dev) in GOPATH mode:
// GO111MODULE=off GOPATH=/usr/share/gocode go build (test/support/helm.ts does it), which is why
// sprig is imported without its /v3 suffix.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v2"
)

type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

// APIVersions answers `.Capabilities.APIVersions.Has "policy/v1"` for a stock 1.30 cluster.
type APIVersions []string

func (a APIVersions) Has(v string) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
}

type KubeVersion struct{ Version, Major, Minor, GitVersion string }

type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions APIVersions
}

// helm's InstallOrder: kinds not listed go last, in file order.
var installOrder = []string{"Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService"}

func main() {
	var files fileList
	chartDir := flag.String("chart", "", "chart directory")
	name := flag.String("name", "platform", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	valuesJSON := flag.Bool("values-json", false, "print the merged values as JSON instead of manifests")
	notes := flag.Bool("notes", false, "print the rendered NOTES.txt instead of manifests")
	existing := flag.String("existing", "", "manifests of objects `lookup` finds")
	flag.Var(&files, "f", "values file (repeatable)")
	flag.Parse()
	if *chartDir == "" {
		fail(errors.New("--chart is required"))
	}
	out, err := render(*chartDir, *name, *namespace, files, *existing, *valuesJSON, *notes)
	if err != nil {
		fail(err)
	}
	os.Stdout.WriteString(out)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "Error: %v\n", err)
	os.Exit(1)
}

func render(chartDir, release, namespace string, valueFiles []string, existingFile string, valuesOnly, notesOnly bool) (string, error) {
	chartRaw, err := readYaml(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return "", err
	}
	chart := map[string]interface{}{}
	for k, v := range chartRaw {
		chart[chartKey(k)] = v
	}
	chartName, _ := chart["Name"].(string)
	values, err := readYaml(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return "", err
	}
	for _, f := range valueFiles {
		over, err := readYaml(f)
		if err != nil {
			return "", err
		}
		values = coalesce(values, over)
	}
	if valuesOnly {
		b, err := json.MarshalIndent(values, "", "  ")
		return string(b) + "\n", err
	}

	t := template.New("gotpl").Option("missingkey=zero")
	includeDepth := 0
	funcs := sprig.TxtFuncMap()
	// Helm removes these: a chart must not read the environment of whoever runs helm.
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = toYaml
	funcs["fromYaml"] = fromYaml
	funcs["fromYamlArray"] = fromYamlArray
	funcs["fromJsonArray"] = fromJSONArray
	funcs["toJson"] = toJSON
	funcs["fromJson"] = fromJSON
	funcs["required"] = required
	cluster, err := readObjects(existingFile)
	if err != nil {
		return "", err
	}
	funcs["lookup"] = func(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
		for _, o := range cluster {
			meta, _ := o["metadata"].(map[string]interface{})
			if o["apiVersion"] == apiVersion && o["kind"] == kind && meta["name"] == name && (namespace == "" || meta["namespace"] == namespace) {
				return o, nil
			}
		}
		return map[string]interface{}{}, nil
	}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		includeDepth++
		defer func() { includeDepth-- }()
		if includeDepth > 1000 {
			return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
		}
		var b strings.Builder
		err := t.ExecuteTemplate(&b, name, data)
		return b.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		c, err := t.Clone()
		if err != nil {
			return "", err
		}
		c, err = c.New("tpl").Parse(text)
		if err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", text, err)
		}
		var b strings.Builder
		if err := c.Execute(&b, data); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
	t.Funcs(funcs)

	templates, files, err := loadChart(chartDir)
	if err != nil {
		return "", err
	}
	var names []string
	for rel := range templates {
		names = append(names, chartName+"/"+rel)
	}
	// In path order, so a template defined twice resolves the same way on every run.
	sort.Strings(names)
	for _, name := range names {
		if _, err := t.New(name).Parse(templates[strings.TrimPrefix(name, chartName+"/")]); err != nil {
			return "", fmt.Errorf("parse error in %q: %w", name, err)
		}
	}

	top := map[string]interface{}{
		"Values":  values,
		"Chart":   chart,
		"Files":   files,
		"Release": map[string]interface{}{"Name": release, "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Capabilities": Capabilities{
			KubeVersion: KubeVersion{Version: "v1.30.0", Major: "1", Minor: "30", GitVersion: "v1.30.0"},
			APIVersions: APIVersions{"v1", "apps/v1", "policy/v1", "autoscaling/v2", "autoscaling/v1", "networking.k8s.io/v1", "rbac.authorization.k8s.io/v1"},
		},
	}
	type doc struct {
		source, body string
		order        int
	}
	execute := func(name string) (string, error) {
		data := map[string]interface{}{"Template": map[string]interface{}{"Name": name, "BasePath": chartName + "/templates"}}
		for k, v := range top {
			data[k] = v
		}
		var b strings.Builder
		if err := t.ExecuteTemplate(&b, name, data); err != nil {
			return "", err
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
	if notesOnly {
		return execute(chartName + "/templates/NOTES.txt")
	}
	var docs []doc
	for _, name := range names {
		base := filepath.Base(name)
		if strings.HasPrefix(base, "_") || base == "NOTES.txt" {
			continue
		}
		out, err := execute(name)
		if err != nil {
			return "", err
		}
		for _, body := range splitManifests(out) {
			docs = append(docs, doc{source: name, body: body, order: kindOrder(body)})
		}
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].order < docs[j].order })
	var b strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", d.source, d.body)
	}
	return b.String(), nil
}

// Files is Helm's `.Files`: the chart's files other than its templates, Chart.yaml and the
// values files, by slash-separated path from the chart's root.
type Files map[string][]byte

// Get returns a file's text, and "" for a file the chart does not hold (Helm does not fail either).
func (f Files) Get(name string) string { return string(f[name]) }

// The chart's files as Helm's loader.LoadDir reads a chart directory: what .helmignore matches
// (and hidden files in templates/, Helm's default rule) is left out, templates/ holds the
// templates, and the rest but Chart.yaml, the values files and charts/ is `.Files`. Templates are
// keyed by their path in the chart (templates/x.yaml).
func loadChart(chartDir string) (map[string]string, Files, error) {
	rules, err := readHelmignore(filepath.Join(chartDir, ".helmignore"))
	if err != nil {
		return nil, nil, err
	}
	templates := map[string]string{}
	files := Files{}
	err = filepath.WalkDir(chartDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(chartDir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if rules.ignore(rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(rel, "templates/"):
			templates[rel] = string(raw)
		case strings.HasPrefix(rel, "charts/"):
		case rel == "Chart.yaml" || rel == "Chart.lock" || rel == "values.yaml" || rel == "values.schema.json" || rel == "requirements.yaml" || rel == "requirements.lock":
		default:
			files[rel] = raw
		}
		return nil
	})
	return templates, files, err
}

// One .helmignore line, read as Helm's pkg/ignore reads it.
type ignoreRule struct {
	pattern         string
	negate, mustDir bool
}

type ignoreRules []ignoreRule

// Helm adds `templates/.?*` to every chart's rules.
func readHelmignore(path string) (ignoreRules, error) {
	raw, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var rules ignoreRules
	lines := strings.Split(strings.TrimPrefix(string(raw), "\uFEFF"), "\n")
	for _, line := range append(lines, "templates/.?*") {
		r := strings.TrimSpace(line)
		if r == "" || strings.HasPrefix(r, "#") {
			continue
		}
		if strings.Contains(r, "**") {
			return nil, fmt.Errorf("%s: double-star (**) syntax is not supported", path)
		}
		if _, err := filepath.Match(r, "abc"); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, r, err)
		}
		rule := ignoreRule{}
		if strings.HasPrefix(r, "!") {
			rule.negate, r = true, r[1:]
		}
		if strings.HasSuffix(r, "/") {
			rule.mustDir, r = true, strings.TrimSuffix(r, "/")
		}
		rule.pattern = r
		rules = append(rules, rule)
	}
	return rules, nil
}

// A pattern with a slash matches the path from the chart's root, one without it the base name.
func (r ignoreRule) match(rel string) bool {
	pattern, name := strings.TrimPrefix(r.pattern, "/"), rel
	if !strings.Contains(r.pattern, "/") {
		name = filepath.Base(rel)
	}
	ok, _ := filepath.Match(pattern, name)
	return ok
}

// Helm's Rules.Ignore, negation's quirk included: a negated rule that does not match ignores.
func (rules ignoreRules) ignore(rel string, isDir bool) bool {
	for _, r := range rules {
		if r.negate {
			if (r.mustDir && !isDir) || !r.match(rel) {
				return true
			}
			continue
		}
		if r.mustDir && !isDir {
			continue
		}
		if r.match(rel) {
			return true
		}
	}
	return false
}

// The objects `lookup` finds: every document of a manifest file (none without one).
func readObjects(path string) ([]map[string]interface{}, error) {
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []map[string]interface{}
	for _, doc := range splitManifests(string(raw)) {
		o, err := yamlToJSONMap([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, o)
	}
	return out, nil
}

var separator = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

// Documents with nothing but blank lines and comments are dropped, as Helm drops them.
func splitManifests(s string) []string {
	var out []string
	for _, part := range separator.Split(s, -1) {
		part = strings.TrimSpace(part)
		empty := true
		for _, line := range strings.Split(part, "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				empty = false
				break
			}
		}
		if !empty {
			out = append(out, part)
		}
	}
	return out
}

func kindOrder(body string) int {
	var head struct {
		Kind string `yaml:"kind"`
	}
	_ = yaml.Unmarshal([]byte(body), &head)
	for i, k := range installOrder {
		if k == head.Kind {
			return i
		}
	}
	return len(installOrder)
}

// Chart.yaml keys as Helm's chart.Metadata fields (`.Chart.AppVersion`).
func chartKey(k string) string {
	switch k {
	case "apiVersion":
		return "APIVersion"
	case "kubeVersion":
		return "KubeVersion"
	}
	if k == "" {
		return k
	}
	return strings.ToUpper(k[:1]) + k[1:]
}

// Helm merges user values over the defaults: maps key by key, anything else replaced, and an
// explicit null deletes the default.
func coalesce(base, over map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if v == nil {
			delete(out, k)
			continue
		}
		bm, bok := out[k].(map[string]interface{})
		om, ook := v.(map[string]interface{})
		if bok && ook {
			out[k] = coalesce(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}

func readYaml(path string) (map[string]interface{}, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := yamlToJSONMap(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// YAML read as Helm reads it (sigs.k8s.io/yaml): converted to JSON, then decoded, so maps have
// string keys and numbers are float64.
func yamlToJSONMap(raw []byte) (map[string]interface{}, error) {
	var v interface{}
	if err := yaml.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	j, err := json.Marshal(jsonable(v))
	if err != nil {
		return nil, err
	}
	out := map[string]interface{}{}
	if string(j) == "null" {
		return out, nil
	}
	if err := json.Unmarshal(j, &out); err != nil {
		return nil, errors.New("expected a mapping at the top level")
	}
	return out, nil
}

func jsonable(v interface{}) interface{} {
	switch x := v.(type) {
	case map[interface{}]interface{}:
		m := map[string]interface{}{}
		for k, val := range x {
			m[fmt.Sprint(k)] = jsonable(val)
		}
		return m
	case []interface{}:
		for i := range x {
			x[i] = jsonable(x[i])
		}
		return x
	}
	return v
}

// Helm's toYaml: through JSON (so numbers print as integers when they are), no trailing newline.
func toYaml(v interface{}) string {
	j, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var obj interface{}
	if err := yaml.Unmarshal(j, &obj); err != nil {
		return ""
	}
	b, err := yaml.Marshal(obj)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

func fromYaml(s string) map[string]interface{} {
	m, err := yamlToJSONMap([]byte(s))
	if err != nil {
		return map[string]interface{}{"Error": err.Error()}
	}
	return m
}

func fromYamlArray(s string) []interface{} {
	var v interface{}
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return []interface{}{err.Error()}
	}
	j, _ := json.Marshal(jsonable(v))
	var out []interface{}
	if err := json.Unmarshal(j, &out); err != nil {
		return []interface{}{err.Error()}
	}
	return out
}

func toJSON(v interface{}) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func fromJSON(s string) map[string]interface{} {
	out := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		out["Error"] = err.Error()
	}
	return out
}

func fromJSONArray(s string) []interface{} {
	var out []interface{}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return []interface{}{err.Error()}
	}
	return out
}

func required(msg string, v interface{}) (interface{}, error) {
	if v == nil {
		return v, errors.New(msg)
	}
	if s, ok := v.(string); ok && s == "" {
		return v, errors.New(msg)
	}
	return v, nil
}
