package layout

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/pricerig/pricerig"

// The team's size rules (BRIEF, issue 27 item 4).
const (
	maxFuncLines = 120
	maxFileLines = 600
)

// pendingFuncs are functions known to run over maxFuncLines whose cut waits (on another branch
// changing them now), with the length each had when listed: one may shrink, never grow, and
// leaves this list (the test says so) once it fits.
var pendingFuncs = map[string]int{}

// repoRoot is the module's root: this package sits two folders below it.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

type goFile struct {
	rel  string // slash path from the repository's root
	file *ast.File
	gen  bool
}

// parseRepo parses every hand-written and generated Go file of the module that is no test.
func parseRepo(t *testing.T, root string) (*token.FileSet, []goFile) {
	t.Helper()
	fset := token.NewFileSet()
	var files []goFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, goFile{rel: filepath.ToSlash(rel), file: f, gen: ast.IsGenerated(f)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("only %d Go files found under %s; the checks would prove nothing", len(files), root)
	}
	return fset, files
}

// exempt says whether the size rules pass a file by: generated bindings, and the provider
// emulations the simulator serves (each a provider's wire format written out in full).
func exempt(f goFile) bool {
	return f.gen || (strings.HasPrefix(f.rel, "sources/") && strings.HasSuffix(f.rel, "/emulation.go"))
}

func TestNoFunctionOrFileTooLong(t *testing.T) {
	fset, files := parseRepo(t, repoRoot(t))
	seen := map[string]bool{}
	for _, f := range files {
		if exempt(f) {
			continue
		}
		if n := fset.File(f.file.Pos()).LineCount(); n > maxFileLines {
			t.Errorf("%s has %d lines, over %d: split it where its parts divide", f.rel, n, maxFileLines)
		}
		for _, d := range f.file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			n := funcLines(fset, fd)
			name := path(f.rel) + "." + funcName(fd)
			if limit, ok := pendingFuncs[name]; ok {
				seen[name] = true
				switch {
				case n <= maxFuncLines:
					t.Errorf("%s (%s) is %d lines now: take it off pendingFuncs", name, f.rel, n)
				case n > limit:
					t.Errorf("%s (%s) grew to %d lines from %d while it waits to be cut: cut it", name, f.rel, n, limit)
				}
				continue
			}
			if n > maxFuncLines {
				t.Errorf("%s (%s:%d) is %d lines, over %d: give its parts names", name, f.rel, fset.Position(fd.Pos()).Line, n, maxFuncLines)
			}
		}
	}
	for name := range pendingFuncs {
		if !seen[name] {
			t.Errorf("pendingFuncs lists %s, which is gone: take it off", name)
		}
	}
}

// funcLines counts a function's lines from its func keyword to its closing brace.
func funcLines(fset *token.FileSet, fd *ast.FuncDecl) int {
	return fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
}

// funcName is a function's name, a method's with its receiver's type: (*Runner).Step.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	star := ""
	if s, ok := typ.(*ast.StarExpr); ok {
		star, typ = "*", s.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return "(" + star + id.Name + ")." + fd.Name.Name
	}
	return fd.Name.Name
}

// path is the folder of a slash path ("." for the root).
func path(rel string) string {
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return "."
}

// TestEveryPackageMapsItsFiles holds issue 27 item 5: a package of more than one file says in
// its doc comment (doc.go, as rig/doc.go does) or in its README.md which file holds what, so
// each of its files is named there.
func TestEveryPackageMapsItsFiles(t *testing.T) {
	root := repoRoot(t)
	_, files := parseRepo(t, root)
	byDir := map[string][]goFile{}
	for _, f := range files {
		byDir[path(f.rel)] = append(byDir[path(f.rel)], f)
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		fs := byDir[dir]
		var text strings.Builder
		for _, f := range fs {
			if f.file.Doc != nil {
				text.WriteString(f.file.Doc.Text())
			}
		}
		if text.Len() == 0 {
			t.Errorf("%s has no package doc comment: say what the package is (doc.go)", dir)
			continue
		}
		if len(fs) == 1 {
			continue
		}
		if readme, err := os.ReadFile(filepath.Join(root, dir, "README.md")); err == nil {
			text.Write(readme)
		}
		for _, f := range fs {
			base := f.rel[strings.LastIndex(f.rel, "/")+1:]
			if base == "doc.go" {
				continue
			}
			if !strings.Contains(text.String(), base) {
				t.Errorf("%s: the package's doc comment (or README.md) does not name %s: say what it holds", dir, base)
			}
		}
	}
}

// layer ranks the module's top-level folders: a package may import one of a lower rank, or of
// its own folder (feeds/history imports feeds, sources/finnhub sources/udf); the leaves may
// import each other.
var layer = map[string]int{
	".": 0, "market": 0, "numeric": 0, "redact": 0, "files": 0, "internal": 0,
	"sources": 1,
	"feeds":   2,
	"rig":     3,
	"audit":   4,
	"doctor":  4, // the operator's preflight (issue 25): beside the audit, under the page
	"explain": 4, // a task's answer explained from the journal and the ledger (issue 25)
	"web":     5,
	"cmd":     6,
}

func top(pkg string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	if rel == "" {
		return "."
	}
	first, _, _ := strings.Cut(rel, "/")
	return first
}

// provider says whether a package is one provider's adapter (or the set of them), which the core
// never names: any package under sources/ but the interface itself, the simulator and
// sources/internal.
func provider(pkg string) bool {
	rel, ok := strings.CutPrefix(pkg, module+"/sources/")
	if !ok {
		return false
	}
	return rel != "sim" && !strings.HasPrefix(rel, "internal/")
}

func TestTheLayersPointOneWay(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		from, ok := layer[top(pkg)]
		if !ok {
			t.Errorf("%s sits in a folder this test does not rank (%s/): give it its layer in layout_test.go", pkg, top(pkg))
			continue
		}
		for _, dep := range strings.Fields(imports) {
			if dep != module && !strings.HasPrefix(dep, module+"/") {
				continue
			}
			checked++
			to, ok := layer[top(dep)]
			if !ok {
				continue // reported as a package of its own
			}
			if to > from || (to == from && from > 0 && top(dep) != top(pkg)) {
				t.Errorf("%s imports %s: the layers point one way (cmd → web → audit → rig → feeds → sources → market, numeric)", pkg, dep)
			}
			if provider(dep) && !provider(pkg) && top(pkg) != "cmd" {
				t.Errorf("%s names the provider package %s: only the commands and sources/all pick providers", pkg, dep)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d imports inside the module seen; the check would prove nothing", checked)
	}
}
