package feeds

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestTheCoreLinksNoAdapter holds the direction of the dependencies: feeds, rig, audit and web
// never import a source adapter (nor sources/all), directly or through another package; the host,
// cmd/pricerig, links them. Their tests may (adapters_test.go).
func TestTheCoreLinksNoAdapter(t *testing.T) {
	const module = "github.com/pricerig/pricerig"
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	adapters := map[string]bool{module + "/sources/all": true}
	for _, p := range strings.Fields(string(listRaw(t, goTool, "-f", `{{join .Imports " "}}`, module+"/sources/all"))) {
		if strings.HasPrefix(p, module+"/sources/") {
			adapters[p] = true
		}
	}
	if len(adapters) < 5 {
		t.Fatalf("sources/all imports %d adapter packages; the check would prove nothing", len(adapters)-1)
	}
	core := []string{module + "/feeds/...", module + "/rig/...", module + "/audit/...", module + "/web/..."}
	// each package with the adapters among its imports, so a failure names who pulls them in
	for _, line := range strings.Split(strings.TrimSpace(string(listRaw(t, goTool, append([]string{"-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`}, core...)...))), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if adapters[pkg] {
			continue // reached through a core package: that package is the one named
		}
		for _, dep := range strings.Fields(imports) {
			if adapters[dep] {
				t.Errorf("%s imports the adapter package %s; only the host (cmd/pricerig) links adapters", pkg, dep)
			}
		}
	}
}

func listRaw(t *testing.T, goTool string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(goTool, append([]string{"list"}, args...)...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	return out
}
