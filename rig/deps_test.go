package rig

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestTheRigLayersPointOneWay holds the direction of the rig tree's dependencies (issue 27):
// the task values, the transaction manager and the journal import nothing of the rig's; the
// AgentRig client builds on those three and never on the runner; nothing but the commands and the
// devnet imports the runner; the audit, the doctor, explain and the operator's page read the journal (and
// the chain through the AgentRig client) but never use the transaction manager; and no package below the rig
// (feeds, sources, market, numeric, internal) imports any of it. Test files aside: a test may
// build whatever its assertions need.
func TestTheRigLayersPointOneWay(t *testing.T) {
	const module = "github.com/pricerig/pricerig"
	const (
		runner   = module + "/rig"
		task     = module + "/rig/task"
		txm      = module + "/rig/txm"
		journal  = module + "/rig/journal"
		agentrig = module + "/rig/agentrig"
		accounts = module + "/rig/accounts"
		rpcpool  = module + "/rig/rpcpool"
		devnet   = module + "/rig/devnet"
	)
	// what each package may import of the rig tree; a package not listed may import none of it
	allowed := map[string][]string{
		task:                              nil,
		txm:                               nil,
		journal:                           nil,
		agentrig:                          {task, txm, journal},
		accounts:                          {task, txm, journal, agentrig},
		rpcpool:                           nil,
		runner:                            {task, txm, journal, agentrig, accounts, rpcpool},
		devnet:                            {runner, task, txm, journal, agentrig, accounts, rpcpool},
		module + "/rig/contract":          nil,
		module + "/rig/internal/nodetest": nil,
		module + "/audit":                 {journal, agentrig},
		module + "/doctor":                {journal, agentrig},
		module + "/explain":               {journal, agentrig},
		module + "/web":                   {journal, agentrig},
		module + "/cmd/pricerig":          {runner, task, txm, journal, agentrig, devnet, rpcpool},
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	inRig := func(p string) bool { return p == runner || strings.HasPrefix(p, runner+"/") }
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		may := map[string]bool{}
		for _, p := range allowed[pkg] {
			may[p] = true
		}
		if _, listed := allowed[pkg]; !listed && inRig(pkg) {
			t.Errorf("%s is a package of the rig tree this test does not place: say what it may import", pkg)
		}
		for _, dep := range strings.Fields(imports) {
			if inRig(dep) {
				checked++
				if !may[dep] {
					t.Errorf("%s imports %s: the rig's layers point one way (see the allowed imports in this test)", pkg, dep)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d imports of the rig tree seen; the check would prove nothing", checked)
	}
}
