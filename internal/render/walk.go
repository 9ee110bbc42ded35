package render

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"sync"
	"text/template/parse"

	"github.com/devlearn/devlearn/templates"
)

// artifactTemplates are templates/render's templates, parsed on first use
// (every devlearn process links this package, hooks included, and only
// render-ready and the demo write artifacts), by name. They are parsed
// with text/template's parser and written by walk, not by text/template:
// its execution finds every field by reflection (a bulk render writes a
// thousand artifacts), and it links net/url and net/netip, whose
// initialisation every hook call paid.
var artifactTemplates = sync.OnceValue(func() map[string]*parse.Tree {
	out := map[string]*parse.Tree{}
	paths, err := fs.Glob(templates.Render, "render/*.tmpl")
	if err != nil || len(paths) == 0 {
		panic(fmt.Sprintf("templates/render: %v", err))
	}
	for _, p := range paths {
		text, err := fs.ReadFile(templates.Render, p)
		if err != nil {
			panic(err)
		}
		name := path.Base(p)
		trees, err := parse.Parse(name, string(text), "", "", templateFuncs)
		if err != nil {
			panic(err) // the templates are ours and tested
		}
		out[name] = trees[name]
	}
	return out
})

// templateFuncs are the functions the templates may call, as the parser
// needs them named.
var templateFuncs = map[string]any{"inc": func(i int) int { return i + 1 }}

// walk writes the template t with d as text/template would, for the
// actions our templates use: fields of the data, .Field "key", a
// variable, inc, if, and range over a list. Any other action is an error
// (TestWalkIsTextTemplate holds every template to text/template).
func walk(t *parse.Tree, d *artifactData, buf *bytes.Buffer) error {
	if t == nil {
		return fmt.Errorf("no such template")
	}
	w := walker{d: d, buf: buf, dot: d, vars: map[string]any{}}
	return w.list(t.Root)
}

type walker struct {
	d    *artifactData
	buf  *bytes.Buffer
	dot  any // *artifactData, or a list's element in a range
	vars map[string]any
}

func (w *walker) list(l *parse.ListNode) error {
	if l == nil {
		return nil
	}
	for _, n := range l.Nodes {
		if err := w.node(n); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) node(n parse.Node) error {
	switch n := n.(type) {
	case *parse.TextNode:
		w.buf.Write(n.Text)
		return nil
	case *parse.ActionNode:
		if len(n.Pipe.Decl) > 0 {
			return unknown(n)
		}
		v, err := w.pipe(n.Pipe)
		if err != nil {
			return err
		}
		switch v := v.(type) {
		case string:
			w.buf.WriteString(v)
		case int:
			w.buf.WriteString(strconv.Itoa(v))
		default:
			return unknown(n)
		}
		return nil
	case *parse.IfNode:
		if len(n.Pipe.Decl) > 0 {
			return unknown(n)
		}
		v, err := w.pipe(n.Pipe)
		if err != nil {
			return err
		}
		truth, ok := truthOf(v)
		if !ok {
			return unknown(n)
		}
		if truth {
			return w.list(n.List)
		}
		return w.list(n.ElseList)
	case *parse.RangeNode:
		return w.rangeOver(n)
	}
	return unknown(n)
}

func unknown(n parse.Node) error { return fmt.Errorf("%s: not an action walk writes", n) }

func (w *walker) rangeOver(n *parse.RangeNode) error {
	if n.Pipe.IsAssign || len(n.Pipe.Decl) > 2 {
		return unknown(n)
	}
	v, err := w.pipe(n.Pipe)
	if err != nil {
		return err
	}
	items, ok := v.([]string)
	if !ok {
		return unknown(n)
	}
	if len(items) == 0 {
		return w.list(n.ElseList)
	}
	dot := w.dot
	defer func() { w.dot = dot }()
	for i, s := range items {
		w.dot = s
		switch len(n.Pipe.Decl) {
		case 1: // {{range $s := ...}}: the element
			w.vars[n.Pipe.Decl[0].Ident[0]] = s
		case 2: // {{range $i, $s := ...}}
			w.vars[n.Pipe.Decl[0].Ident[0]] = i
			w.vars[n.Pipe.Decl[1].Ident[0]] = s
		}
		if err := w.list(n.List); err != nil {
			return err
		}
	}
	return nil
}

// pipe evaluates a pipeline of one command.
func (w *walker) pipe(p *parse.PipeNode) (any, error) {
	if p == nil || len(p.Cmds) != 1 {
		return nil, fmt.Errorf("%s: not an action walk writes", p)
	}
	args := p.Cmds[0].Args
	switch a := args[0].(type) {
	case *parse.DotNode:
		if s, ok := w.dot.(string); ok && len(args) == 1 {
			return s, nil
		}
	case *parse.VariableNode:
		if v, ok := w.vars[a.Ident[0]]; ok && len(args) == 1 && len(a.Ident) == 1 {
			return v, nil
		}
	case *parse.FieldNode:
		if w.dot != any(w.d) || len(a.Ident) != 1 {
			break
		}
		if len(args) == 1 {
			if v, ok := w.field(a.Ident[0]); ok {
				return v, nil
			}
		}
		if len(args) == 2 && a.Ident[0] == "Field" {
			if s, ok := args[1].(*parse.StringNode); ok {
				return w.d.Field(s.Text), nil
			}
		}
	case *parse.IdentifierNode:
		if a.Ident == "inc" && len(args) == 2 {
			if v, ok := args[1].(*parse.VariableNode); ok && len(v.Ident) == 1 {
				if i, ok := w.vars[v.Ident[0]].(int); ok {
					return i + 1, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("%s: not an action walk writes", p)
}

func (w *walker) field(name string) (any, bool) {
	d := w.d
	switch name {
	case "ID":
		return d.ID, true
	case "Anchor":
		return d.Anchor, true
	case "Date":
		return d.Date, true
	case "Pattern":
		return d.Pattern, true
	case "Lower":
		return d.Lower, true
	case "FrontMatter":
		return d.FrontMatter, true
	case "Body":
		return d.Body, true
	case "Steps":
		return d.Steps, true
	case "Evidence":
		return d.Evidence, true
	}
	return nil, false
}

// truthOf is text/template's truth of the values walk reads.
func truthOf(v any) (truth, ok bool) {
	switch v := v.(type) {
	case string:
		return v != "", true
	case []string:
		return len(v) > 0, true
	case int:
		return v != 0, true
	}
	return false, false
}
