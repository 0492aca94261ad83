package all_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of sources/.
const module = "github.com/pricerig/pricerig/sources/"

// folder is what the checklist test reads of a provider's folder, from its Go source: the calls
// it makes (package.Name, e.g. "sources.Adapter", "sim.Register") in production code and in its
// tests, the string literals of its tests, its top-level constants, and the fields of its
// factory's sources.Factory literal.
type folder struct {
	dir          string // relative to sources/: "alpaca"
	calls, tests map[string]bool
	literals     []string             // the tests' string literals
	consts       map[string]string    // top-level constant → its value (strings unquoted)
	constNames   map[string]bool      // every top-level constant, whatever its value
	factory      map[string]ast.Expr  // sources.Factory{…} of `var factory = sources.Adapter(…)`
	imports      map[string]bool      // production imports
	files        map[string]*ast.File // production files, by name
}

// readFolder parses the Go files of sources/<dir> (not its sub-folders).
func readFolder(t *testing.T, dir string) *folder {
	t.Helper()
	f := &folder{dir: dir, calls: map[string]bool{}, tests: map[string]bool{}, consts: map[string]string{},
		constNames: map[string]bool{}, imports: map[string]bool{}, files: map[string]*ast.File{}}
	entries, err := os.ReadDir(filepath.Join("..", dir))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join("..", dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		test := strings.HasSuffix(e.Name(), "_test.go")
		if !test {
			f.files[e.Name()] = file
			for _, im := range file.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				f.imports[p] = true
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok {
						name := x.Name + "." + sel.Sel.Name
						if test {
							f.tests[name] = true
						} else {
							f.calls[name] = true
						}
					}
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); test && n.Kind == token.STRING && err == nil {
					f.literals = append(f.literals, s)
				}
			}
			return true
		})
		if test {
			continue
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if g.Tok == token.CONST {
						f.constNames[name.Name] = true
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
							v, err := strconv.Unquote(lit.Value)
							if err != nil {
								v = lit.Value
							}
							f.consts[name.Name] = v
						}
					}
					if g.Tok == token.VAR && name.Name == "factory" {
						f.factory = factoryFields(vs.Values[i])
					}
				}
			}
		}
	}
	return f
}

// factoryFields are the keyed fields of sources.Factory{…} in sources.Adapter(sources.Factory{…},
// build); nil when the expression is not that call.
func factoryFields(e ast.Expr) map[string]ast.Expr {
	call, ok := e.(*ast.CallExpr)
	if !ok || selector(call.Fun) != "sources.Adapter" || len(call.Args) != 2 {
		return nil
	}
	lit, ok := call.Args[0].(*ast.CompositeLit)
	if !ok || selector(lit.Type) != "sources.Factory" {
		return nil
	}
	out := map[string]ast.Expr{}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok {
				out[k.Name] = kv.Value
			}
		}
	}
	return out
}

func selector(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if x, ok := sel.X.(*ast.Ident); ok {
			return x.Name + "." + sel.Sel.Name
		}
	}
	return ""
}

// isIdent reports whether e is the bare identifier name.
func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// registers reports whether a folder's production code registers a source type: it calls
// sources.Adapter or sources.Register. That is what makes it an adapter, which sources/all must
// import or the type does not exist.
func (f *folder) registers() bool { return f.calls["sources.Adapter"] || f.calls["sources.Register"] }

// adapterFolders are the folders under sources/ whose production code registers a source type.
func adapterFolders(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == ".." {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel("..", path)
		if readFolder(t, rel).registers() {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryAdapterFolderIsImported holds sources/all/all.go to being the one registration point
// (like Prometheus' discovery/install): every folder under sources/ whose code registers a type
// is imported by it, and it imports nothing else. A provider folder left out would build, pass
// its own tests and never exist for sources.yaml, `pricerig sim` or the checks below.
func TestEveryAdapterFolderIsImported(t *testing.T) {
	all := readFolder(t, "all")
	var imported []string
	for p := range all.imports {
		imported = append(imported, strings.TrimPrefix(p, module))
	}
	adapters := adapterFolders(t)
	if len(adapters) == 0 {
		t.Fatal("no folder under sources/ registers a type: the detection is broken")
	}
	for _, dir := range adapters {
		if !slices.Contains(imported, dir) {
			t.Errorf("sources/%s registers a source type but sources/all/all.go does not import it: add the line _ %q", dir, module+dir)
		}
	}
	for _, dir := range imported {
		if !slices.Contains(adapters, dir) {
			t.Errorf("sources/all imports %s, which registers no source type", dir)
		}
	}
}

// table reads the markdown table whose header row starts with head from a file: its rows, each
// a list of trimmed cells, without the header and the |---| line.
func table(t *testing.T, path, head string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, head) })
	if i < 0 {
		t.Fatalf("%s has no table headed %q", path, head)
	}
	var rows [][]string
	for _, l := range lines[i+2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows = append(rows, cells)
	}
	return rows
}

// backticked lists the `quoted` words of a cell.
func backticked(cell string) []string {
	var out []string
	parts := strings.Split(cell, "`")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}
