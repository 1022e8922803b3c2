package redisrepo

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Every Lua script of the adapter is a documented package-level var declared with
// store.NewScript (its doc comment says its KEYS or ARGV and what it returns), and
// store.Script.Run is the only runner: no file outside store calls EVALSHA or EVAL itself
// or makes a go-redis script. The list below is every script, and every script built is in it.
func TestEveryScriptIsDeclaredAndDocumented(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	var declared []string
	other := regexp.MustCompile(`redis\.NewScript\(|\.EvalSha\(|\.Eval\(|\.EvalRO\(`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if path != filepath.Join("store", "scripts.go") {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if s := exprString(c.Fun); other.MatchString(s + "(") {
						t.Errorf("%s: %s runs or makes a script outside store.Script", fset.Position(c.Pos()), s)
					}
				}
				return true
			})
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if len(v.Values) != 1 {
					continue
				}
				call, ok := v.Values[0].(*ast.CallExpr)
				if !ok || !strings.HasSuffix(exprString(call.Fun), "NewScript") {
					continue
				}
				name := filepath.Dir(path) + "." + v.Names[0].Name
				declared = append(declared, name)
				doc := g.Doc.Text() + v.Doc.Text()
				if !strings.Contains(doc, "KEYS") && !strings.Contains(doc, "ARGV") || !strings.Contains(doc, "Return") {
					t.Errorf("%s: script %s is not documented with its KEYS/ARGV and what it returns", fset.Position(v.Pos()), name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(store.Scripts()); got != len(declared) {
		t.Errorf("%d scripts built, %d declared as package-level vars: %v", got, len(declared), declared)
	}
	t.Logf("%d scripts: %v", len(declared), declared)
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	}
	return ""
}

// Every error operation string ("queues.Queues.Enqueue") names the function it sits in, with
// its own package, as asynq's `const op = "rdb.Enqueue"` does: a message then says where it
// failed. An operation string is a literal that starts with one of the adapter's packages,
// then a function or a type and its method.
func TestErrorOpsNameTheirFunction(t *testing.T) {
	t.Parallel()
	opString := regexp.MustCompile(`^(redisrepo|auth|boards|history|limiters|locks|notify|queues|sources|store)\.[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$`)
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			want := f.Name.Name + "." + fn.Name.Name
			if fn.Recv != nil {
				typ := fn.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if g, ok := typ.(*ast.IndexExpr); ok {
					typ = g.X
				}
				want = f.Name.Name + "." + exprString(typ) + "." + fn.Name.Name
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s := strings.Trim(lit.Value, "\"`")
					if op, _, _ := strings.Cut(s, ":"); opString.MatchString(op) && op != want {
						t.Errorf("%s: op %q in %s", fset.Position(lit.Pos()), s, want)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
