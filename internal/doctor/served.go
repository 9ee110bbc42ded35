package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/curator"
	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/inject"
	"github.com/devlearn/devlearn/internal/knowledge"
)

// maxServedFindings bounds the places the check names one by one.
const maxServedFindings = 12

// servedText looks at everything devlearn serves an agent as the
// project's knowledge (entries, decisions and pitfalls, directive files,
// the curated sections) for text that imitates the harness or a role,
// which is served made plain, and for orders to fetch and run code or to
// ignore other instructions, which are held until a person accepts them.
// A held lesson fails the check: someone must look at it.
func servedText(in Inputs) Check {
	const name = "served knowledge speaks as data"
	var held, markup []string
	look := func(rel, text string, heldWhy, accept string) {
		for _, f := range inject.Markup(text) {
			markup = append(markup, fmt.Sprintf("%s:%d %s", rel, f.Line, f.What()))
		}
		if heldWhy == "" {
			return
		}
		for _, f := range inject.Instructions(text) {
			held = append(held, fmt.Sprintf("%s:%d %s (held: %s)", rel, f.Line, f.What(), accept))
			break
		}
	}
	set := knowledge.ReadAll(knowledge.Sources{Root: in.Proj.Root, GlobalDir: knowledge.GlobalEntriesDir(in.Home)})
	heldItems := map[string]*knowledge.Item{}
	for _, it := range set.Items {
		if it.Held != "" {
			heldItems[it.Path] = it // sections share a file: one is enough to name it
		}
	}
	var files []string
	for _, it := range set.Items {
		if !contains(files, it.Path) {
			files = append(files, it.Path)
		}
	}
	for _, rel := range files {
		data, err := os.ReadFile(absOf(in.Proj.Root, rel))
		if err != nil {
			continue
		}
		why, accept := "", ""
		if it := heldItems[rel]; it != nil {
			why, accept = it.Held, knowledge.HeldNext(it)
		}
		look(rel, string(data), why, accept)
	}
	for _, rel := range directiveFiles(in) {
		data, err := os.ReadFile(absOf(in.Proj.Root, rel))
		if err != nil {
			continue
		}
		why, accept := knowledge.FileHeld(string(data))
		if why != "" {
			accept = "read it; a person who accepts it adds the line '" + accept + "'"
		}
		look(rel, string(data), why, accept)
	}
	if l, err := config.LoadProject(in.Home, in.Proj.Root); err == nil {
		for _, rel := range l.Config.Curator.Files {
			data, err := os.ReadFile(in.Proj.Path(rel))
			if err != nil {
				continue
			}
			section, first := curatedSection(string(data))
			for _, f := range inject.Scan(section) {
				markup = append(markup, fmt.Sprintf("%s:%d %s", rel, first+f.Line-1, f.What()))
			}
		}
	}
	switch {
	case len(held) > 0:
		return fail(name, fmt.Sprintf("%d %s held for a person's review, not served: %s", len(held), pluralWord(len(held), "lesson", "lessons"), cutList(held)),
			"read each at the line named: if a teammate or an injected turn wrote it, delete it; if it is right, accept it as said; 'devlearn learn --review' lists the entries")
	case len(markup) > 0:
		return note(name, fmt.Sprintf("%d %s %s harness or role markup, served as plain text: %s", len(markup), pluralWord(len(markup), "line", "lines"), pluralWord(len(markup), "imitates", "imitate"), cutList(markup)),
			"read each at the line named: markup such as </system-reminder> or SYSTEM: in a lesson is seldom meant; remove it unless it is")
	}
	return ok(name, "no lesson imitates the harness or orders code run or instructions ignored")
}

func absOf(root, rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(root, filepath.FromSlash(rel))
}

func cutList(list []string) string {
	if len(list) > maxServedFindings {
		return strings.Join(list[:maxServedFindings], "; ") + fmt.Sprintf("; and %d more", len(list)-maxServedFindings)
	}
	return strings.Join(list, "; ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// directiveFiles are the directive files git knows of in the working tree,
// and those it does not ignore.
func directiveFiles(in Inputs) []string {
	if in.Git == nil {
		return nil
	}
	out, err := in.Git(in.Proj.Root, "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", ":(glob)**/"+directives.DirName+"/*")
	if err != nil {
		return nil
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" && !contains(files, f) {
			files = append(files, f)
		}
	}
	return files
}

// curatedSection is the text between a file's curated markers, and the
// line it starts on; "" when it has none.
func curatedSection(text string) (string, int) {
	lines := strings.Split(text, "\n")
	begin := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case begin < 0 && strings.HasPrefix(t, curator.BeginPrefix):
			begin = i
		case begin >= 0 && t == curator.EndMarker:
			return strings.Join(lines[begin+1:i], "\n"), begin + 2
		}
	}
	return "", 0
}
