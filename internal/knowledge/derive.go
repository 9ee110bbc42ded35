package knowledge

import (
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/words"
)

// A lesson says when it applies in its own words: "bump the version in
// marketplace.json when plugin.json is changed", "never run `kubectl
// apply`", "in package billing, amounts are cents". derive reads those
// words once, when the cache is built, into triggers of the same kinds an
// entry's author writes: files, commands, and topic keywords for the
// person's requests. It reads English prose; in any language, what is in
// backticks counts.
//
// What makes a named file a trigger is that the text says a change
// happens to it or in it, not that it is mentioned: "a key was added to
// en.json" or "the Go code in internal/db/queries" make triggers, "copy
// go.mod and go.sum first" (a step inside a Dockerfile) does not. A
// command is a trigger when the text warns against it ("not npm", "never
// `kubectl apply`") or reports it as what went wrong (in backticks, or in
// the title: "go test fails in CI"), not
// when it is the remedy ("run `make generate`", "use pnpm"): serving a
// lesson while the agent already does the right thing is noise.
//
// What is derived is kept in the cache (cachederived.go): a change to
// these rules bumps cacheVersion, so that a cache built by an older
// devlearn is rebuilt rather than trusted.

// derived are the triggers found in a lesson's text.
type derived struct {
	files    []string // doublestar globs on project-relative paths
	commands []Command
	// named are the programs of commands only named, without a
	// subcommand and without a word against them ("`git` cannot verify
	// the certificate", "git has no author identity"): a title reporting
	// a failure names its program so, and so does a story in passing.
	named  []Command
	topics []string // Phrase form
}

// maxDerived bounds what one lesson's text can add.
const maxDerived = 24

// unit is a word of prose or a span in backticks.
type unit struct {
	text  string // trimmed of punctuation (a word), or the span's inside
	lower string
	code  bool
	end   bool // a clause ends after it
	title bool
}

// deriveTriggers reads the title (a pitfall's or decision's heading, an
// entry's summary) and the rest of the lesson.
func deriveTriggers(title, body string) derived {
	var d derived
	units := append(splitUnits(title, true), splitUnits(body, false)...)
	for i := range units {
		u := &units[i]
		switch {
		case u.code:
			if c, ok := commandIn(u.text); ok {
				if p := polarity(units, i); p != recommended {
					d.add(c, p)
				}
				continue
			}
			if pathWord(u.text, true) && subject(units, i) {
				d.addFile(u.text)
				continue
			}
			if u.title && codeName(u.text) {
				d.addTopic(u.text)
			}
		case pathWord(u.text, false):
			if subject(units, i) {
				d.addFile(u.text)
			}
		case gitActions[u.lower] != "" && u.text == u.lower && !(i > 0 && determiners.has(units[i-1].lower)):
			// "Never commit without signing", "don't force push": the
			// git action is the command, though git is not named. Only
			// when warned against: "push when the tests pass" is the
			// remedy, "a commit message" a thing.
			if polarity(units, i) == warned {
				d.commands = uniqueCommands(d.commands, Command{Verb: "git", Words: []string{gitActions[u.lower]}})
			}
		case knownVerbs.has(u.lower) && u.text == u.lower && !(i > 0 && determiners.has(units[i-1].lower)):
			// "the git binary" is a thing, not a command run.
			c := Command{Verb: u.lower}
			if i+1 < len(units) && !u.end && !units[i+1].code && subcommands.has(units[i+1].lower) && units[i+1].text == units[i+1].lower {
				c.Words = []string{alias(c.Verb, units[i+1].lower)}
			} else if ambiguousVerbs.has(c.Verb) {
				continue
			}
			// In prose a command counts when warned against, or when the
			// title reports it ("go test fails in CI").
			if p := polarity(units, i); p == warned || u.title && p == neutral {
				d.add(c, p)
			}
		case u.lower == "package" || u.lower == "module":
			if name := packageName(units, i); name != "" {
				d.addFile("**/" + name + "/**")
				d.addTopic(name)
			}
		case u.title && codeName(u.text):
			d.addTopic(u.text)
		}
	}
	if len(d.commands) > maxDerived {
		d.commands = d.commands[:maxDerived]
	}
	if len(d.named) > maxDerived {
		d.named = d.named[:maxDerived]
	}
	return d
}

func (d *derived) add(c Command, p tone) {
	if p == neutral && len(c.Words) == 0 {
		d.named = uniqueCommands(d.named, c)
		return
	}
	d.commands = uniqueCommands(d.commands, c)
}

func (d *derived) addFile(w string) {
	for _, g := range textGlobs(w) {
		if len(d.files) < maxDerived && !contains(d.files, g) {
			d.files = append(d.files, g)
		}
	}
}

func (d *derived) addTopic(w string) {
	p := words.Phrase(w)
	if p != "" && len(d.topics) < maxDerived && !contains(d.topics, p) {
		d.topics = append(d.topics, p)
	}
}

// splitUnits cuts text into words and backtick spans.
func splitUnits(text string, title bool) []unit {
	var out []unit
	for len(text) > 0 {
		i := strings.IndexAny(text, "`")
		prose := text
		if i >= 0 {
			prose = text[:i]
		}
		for _, w := range strings.Fields(prose) {
			t := strings.TrimLeft(w, "([{<\"'“‘*_")
			t = strings.TrimRight(t, ")]}>\"'”’*_,;:!?")
			end := strings.ContainsAny(w[len(w)-1:], ".;!?")
			if strings.HasSuffix(t, ".") && !strings.HasSuffix(t, "/.") {
				t = strings.TrimRight(t, ".")
				end = true
			}
			if t == "" {
				if end && len(out) > 0 {
					out[len(out)-1].end = true
				}
				continue
			}
			out = append(out, unit{text: t, lower: strings.ToLower(t), end: end, title: title})
		}
		if i < 0 {
			break
		}
		rest := text[i+1:]
		j := strings.IndexByte(rest, '`')
		if j < 0 {
			break // an unclosed backtick: the rest is not a span
		}
		span := strings.TrimSpace(rest[:j])
		if span != "" && !strings.Contains(span, "\n") {
			out = append(out, unit{text: span, lower: strings.ToLower(span), code: true, title: title})
		}
		text = rest[j+1:]
		if t := strings.TrimLeft(text, " "); strings.HasPrefix(t, ".") || strings.HasPrefix(t, ";") {
			if len(out) > 0 {
				out[len(out)-1].end = true
			}
		}
	}
	return out
}

// subjectCues before a path say the lesson is about a change to it or in
// it; changedCues after it, that it was changed.
var (
	subjectCues = lazySet(`change changes changed changing edit edits edited editing modify modifies modified
modifying touch touches touched touching update updates updated updating add adds added adding write
writes writing wrote bump bumps bumped bumping rename renames renamed renaming delete deletes deleted
deleting remove removes removed removing create creates created creating in under inside within to
into when before after`)
	changedCues = lazySet(`changed edited modified touched updated renamed deleted removed created written
bumped regenerated`)
)

// subject reports whether the path at i is what the lesson is about: in
// its title, or near a word that says it is changed (within the clause).
func subject(units []unit, i int) bool {
	if units[i].title {
		return true
	}
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		if units[j].end {
			break
		}
		if !units[j].code && subjectCues.has(units[j].lower) {
			return true
		}
	}
	for j := i + 1; j < len(units) && j <= i+3; j++ {
		if units[j-1].end {
			break
		}
		if !units[j].code && changedCues.has(units[j].lower) {
			return true
		}
	}
	return false
}

type tone int

const (
	neutral tone = iota
	warned
	recommended
)

var (
	warnCues      = lazySet(`never not don't dont avoid instead rather stop without forbid forbidden`)
	momentCues    = lazySet(`before after when whenever while`)
	recommendCues = lazySet(`use uses using run runs running with then always prefer via through by start add`)
)

// runVerbs say a command is run: "before running go test".
var runVerbs = lazySet(`run runs ran running execute executes executing invoke invoking call calling`)

// polarity is how the text speaks of the command at i: warned against
// ("never", "not", "instead of" within three words before it) or named as
// the moment the lesson applies ("before `terraform apply`", "when
// running go test"; in prose the run must be said, since "came before go
// mod download" describes, it does not warn), both triggers; recommended
// ("use", "run", "with" just before it), or neither.
func polarity(units []unit, i int) tone {
	ran, crossed := false, false
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if units[j].end {
			break
		}
		// A moment names the command right after it: in "before `git
		// push`, run `git pull --rebase`" the pull is the remedy.
		if warnCues.has(units[j].lower) || momentCues.has(units[j].lower) && (units[i].code || ran) && !crossed {
			return warned
		}
		ran = ran || runVerbs.has(units[j].lower)
		crossed = crossed || units[j].code
	}
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		if units[j].end {
			break
		}
		if recommendCues.has(units[j].lower) {
			return recommended
		}
	}
	return neutral
}

// gitActions are the git subcommands a lesson names as verbs of prose,
// without the program, and the subcommand each runs.
var gitActions = map[string]string{"commit": "commit", "push": "push", "force-push": "push", "rebase": "rebase", "amend": "commit", "cherry-pick": "cherry-pick"}

// determiners before a program's name make it a thing talked about.
var determiners = lazySet(`the a an this that its our their your his her my no`)

// notPackages are words that follow "package" without naming one.
var notPackages = lazySet(`manager managers lock lockfile name names version versions json registry
registries install installs update updates is was are and or the a an of for to in that which level
main file files list lists it its this`)

// packageName reads "in package billing", "in the auth package", "the
// orders module": the name of the package the lesson is about, or "".
func packageName(units []unit, i int) string {
	ok := func(w unit) bool {
		return !w.code && w.text == w.lower && identifierLike(w.text) && !notPackages.has(w.lower) && !knownVerbs.has(w.lower)
	}
	prep := func(j int) bool {
		return j >= 0 && !units[j].end && (units[j].lower == "in" || units[j].lower == "inside" || units[j].lower == "of" || units[j].lower == "from" || units[j].lower == "to")
	}
	// "in package billing", "in the package billing"
	if i+1 < len(units) && !units[i].end && ok(units[i+1]) {
		j := i - 1
		if j >= 0 && units[j].lower == "the" {
			j--
		}
		if prep(j) {
			return units[i+1].lower
		}
	}
	// "in the billing package"
	if i >= 2 && !units[i-1].end && ok(units[i-1]) && units[i-2].lower == "the" && prep(i-3) {
		return units[i-1].lower
	}
	return ""
}

// identifierLike: a name in code, not a word of prose: CartButton,
// go-git, order_items, useEffect. Plain lower-case words qualify only
// for packageName.
func identifierLike(w string) bool {
	if len(w) < 3 || len(w) > 40 {
		return false
	}
	upper, inner := 0, false
	for i, c := range w {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c >= 'A' && c <= 'Z':
			upper++
			inner = inner || i > 0
		case c == '-' || c == '_':
			inner = inner || (i > 0 && i < len(w)-1)
		default:
			return false
		}
	}
	if !unicode.IsLetter(rune(w[0])) {
		return false
	}
	if upper == 0 && !inner {
		return true // a plain word: packageName decides
	}
	return inner && upper < len(w)/2
}

// codeName: a name in code, not a word of prose or a brand: CartButton,
// order_items, useEffect; not "re-render", "GitHub" or "TypeScript".
func codeName(w string) bool {
	if !identifierLike(w) || strings.Contains(w, "-") || brands.has(strings.ToLower(w)) {
		return false
	}
	return w != strings.ToLower(w) && w != strings.ToUpper(w) || strings.Contains(strings.Trim(w, "_"), "_")
}

// brands are names written in CamelCase that are not the project's code.
var brands = lazySet(`github gitlab bitbucket javascript typescript postgresql mysql sqlite mongodb dynamodb
openapi graphql macos ios iphone ipad youtube linkedin paypal wordpress devops nodejs vscode intellij
powershell bigquery cloudflare digitalocean openai chatgpt claude anthropic webpack nextjs dockerhub
circleci jenkins grafana opentelemetry elasticsearch rabbitmq kafka redis postgres npm pnpm`)

// fileExts are the endings that make a word of prose a file name.
var fileExts = lazySet(`go mod sum md mdx json jsonc yaml yml toml ts tsx mts cts js jsx mjs cjs py pyi rb
rs java kt kts c h cc cpp hpp cs sh bash zsh ps1 sql html htm css scss sass less txt lock cfg ini
env xml gradle swift php proto graphql gql tf tfvars hcl vue svelte dart ex exs erl hs ml lua scala
clj zig nix bzl cmake mk csv ipynb conf properties plist gemspec tmpl tpl j2 http rst adoc`)

// knownFiles are file names without an ending.
var knownFiles = lazySet(`makefile dockerfile containerfile justfile gemfile rakefile procfile jenkinsfile
vagrantfile brewfile changelog readme license codeowners .gitignore .gitattributes .dockerignore .env
.npmrc .nvmrc .editorconfig .eslintrc .prettierrc .babelrc .tool-versions go.work`)

// jsLibraries are names of libraries that read like file names.
var jsLibraries = lazySet(`node.js next.js vue.js react.js express.js nuxt.js d3.js three.js chart.js
nest.js deno.js ember.js backbone.js angular.js socket.io`)

// pathWord reports whether a word names a file, a folder or a glob. In
// prose a word with a slash must look like a path, not "and/or": a file
// ending, a folder's closing slash, or two slashes. In backticks any path
// shape will do.
func pathWord(w string, quoted bool) bool {
	if !strings.ContainsAny(w, `/.\*`) {
		return knownFiles.has(strings.ToLower(w)) // most words of prose: no path shape at all
	}
	if len(w) > 200 || strings.Contains(w, "://") || strings.ContainsAny(w, " \t={}<>|;,\"'") || strings.ContainsAny(w, "()") && !groupSegments(w) {
		return false
	}
	w = repopath.Slash(w)
	low := strings.ToLower(w)
	if jsLibraries.has(low) {
		return false
	}
	base := low[strings.LastIndexByte(low, '/')+1:]
	named := knownFiles.has(base) || strings.Contains(base, "*")
	if dot := strings.LastIndexByte(base, '.'); dot > 0 && dot < len(base)-1 && fileExts.has(base[dot+1:]) {
		named = true
	} else if dot == 0 && len(base) > 2 {
		named = knownFiles.has(base)
	}
	if !strings.Contains(w, "/") {
		return named
	}
	if strings.HasPrefix(w, "/") && strings.Count(w, "/") == 1 && !strings.Contains(base, ".") {
		return false // a slash command ("/changelog"), not a file
	}
	for _, c := range w {
		if !(unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune("/._-*?[]@+~:()", c)) {
			return false
		}
	}
	if quoted || named || strings.HasSuffix(w, "/") && strings.Count(w, "/") >= 2 {
		return true
	}
	return strings.Count(strings.Trim(w, "/"), "/") >= 2
}

// groupSegments reports a path whose parentheses are only whole segments
// of it, between slashes ("src/app/(dashboard)/items/page.tsx": a route
// group), and that has such a segment.
func groupSegments(w string) bool {
	if !strings.Contains(w, "/") || !strings.ContainsAny(w, "()") {
		return false
	}
	for _, seg := range strings.Split(w, "/") {
		inner := strings.TrimSuffix(strings.TrimPrefix(seg, "("), ")")
		if strings.ContainsAny(inner, "()") || strings.HasPrefix(seg, "(") != strings.HasSuffix(seg, ")") || seg == "()" {
			return false
		}
	}
	return true
}

// textGlobs turns a path named in a lesson's text into globs. Named in
// prose, a path may be written from any folder ("stores/cart.ts"), so it
// matches as a tail; a folder covers what is under it, and a one-segment
// folder ("web/") is too broad to be a trigger of its own. An absolute
// path (another clone) stays absolute and matches as a tail too.
func textGlobs(w string) []string {
	w = strings.TrimRight(repopath.Slash(w), ".:")
	if w == "" || w == "." || w == "/" {
		return nil
	}
	if repopath.IsAbs(w) {
		return []string{w}
	}
	folder := strings.HasSuffix(w, "/")
	w = strings.Trim(w, "/")
	if folder && !strings.Contains(w, "/") && !strings.HasPrefix(w, "**") {
		return nil
	}
	if !strings.HasPrefix(w, "**") {
		w = "**/" + w
	}
	var globs []string
	switch {
	case folder:
		globs = []string{w + "/**"}
	case strings.ContainsAny(w[3:], "*?[") || strings.Contains(w[strings.LastIndexByte(w, '/')+1:], ".") || knownFiles.has(strings.ToLower(w[strings.LastIndexByte(w, '/')+1:])):
		globs = []string{w}
	default:
		globs = []string{w, w + "/**"}
	}
	var out []string
	for _, g := range globs {
		if doublestar.ValidatePattern(g) {
			out = append(out, g)
		}
	}
	return out
}
