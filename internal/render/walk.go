package render

import (
	"bytes"
	"strconv"
	"text/template"
	"text/template/parse"
)

// walk writes the template name with d as text/template writes it, for
// the actions devlearn's templates use: fields of the data, .Field "key",
// a variable, inc, if, and range over a list. text/template finds a
// field by reflection on every action; a bulk render writes a thousand
// artifacts, and walking the parsed templates directly takes a tenth of
// the time. ok is false on any other action, and nothing is written: the
// caller runs text/template.
func walk(t *template.Template, name string, d *artifactData, buf *bytes.Buffer) (ok bool) {
	tt := t.Lookup(name)
	if tt == nil || tt.Tree == nil {
		return false
	}
	w := walker{d: d, buf: buf, dot: d, vars: map[string]any{}}
	start := buf.Len()
	if !w.list(tt.Tree.Root) {
		buf.Truncate(start)
		return false
	}
	return true
}

type walker struct {
	d    *artifactData
	buf  *bytes.Buffer
	dot  any // *artifactData, or a list's element in a range
	vars map[string]any
}

func (w *walker) list(l *parse.ListNode) bool {
	if l == nil {
		return true
	}
	for _, n := range l.Nodes {
		if !w.node(n) {
			return false
		}
	}
	return true
}

func (w *walker) node(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.TextNode:
		w.buf.Write(n.Text)
		return true
	case *parse.ActionNode:
		if len(n.Pipe.Decl) > 0 {
			return false
		}
		v, ok := w.pipe(n.Pipe)
		if !ok {
			return false
		}
		switch v := v.(type) {
		case string:
			w.buf.WriteString(v)
		case int:
			w.buf.WriteString(strconv.Itoa(v))
		default:
			return false
		}
		return true
	case *parse.IfNode:
		if len(n.Pipe.Decl) > 0 {
			return false
		}
		v, ok := w.pipe(n.Pipe)
		if !ok {
			return false
		}
		truth, ok := truthOf(v)
		if !ok {
			return false
		}
		if truth {
			return w.list(n.List)
		}
		return w.list(n.ElseList)
	case *parse.RangeNode:
		return w.rangeOver(n)
	}
	return false
}

func (w *walker) rangeOver(n *parse.RangeNode) bool {
	if n.Pipe.IsAssign || len(n.Pipe.Decl) > 2 {
		return false
	}
	v, ok := w.pipe(n.Pipe)
	if !ok {
		return false
	}
	items, ok := v.([]string)
	if !ok {
		return false
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
		if !w.list(n.List) {
			return false
		}
	}
	return true
}

// pipe evaluates a pipeline of one command.
func (w *walker) pipe(p *parse.PipeNode) (any, bool) {
	if p == nil || len(p.Cmds) != 1 {
		return nil, false
	}
	args := p.Cmds[0].Args
	switch a := args[0].(type) {
	case *parse.DotNode:
		if len(args) == 1 {
			if s, ok := w.dot.(string); ok {
				return s, true
			}
		}
	case *parse.VariableNode:
		if len(args) == 1 && len(a.Ident) == 1 {
			v, ok := w.vars[a.Ident[0]]
			return v, ok
		}
	case *parse.FieldNode:
		if w.dot != any(w.d) || len(a.Ident) != 1 {
			return nil, false
		}
		if len(args) == 1 {
			return w.field(a.Ident[0])
		}
		if s, ok := args[1].(*parse.StringNode); ok && len(args) == 2 && a.Ident[0] == "Field" {
			return w.d.Field(s.Text), true
		}
	case *parse.IdentifierNode:
		if a.Ident == "inc" && len(args) == 2 {
			if v, ok := args[1].(*parse.VariableNode); ok && len(v.Ident) == 1 {
				if i, ok := w.vars[v.Ident[0]].(int); ok {
					return i + 1, true
				}
			}
		}
	}
	return nil, false
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
