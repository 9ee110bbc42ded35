package extract

import (
	"path"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/transcript"
)

// A correction is the person telling the agent what it failed to do. The
// rules match only sentences addressed to the agent ("you ..."), in the
// person's own prose, and not under a condition or a hedge ("if you forgot",
// "I'm not saying you missed"). What follows the trigger is the lesson.
type correctionKind int

const (
	forgot        correctionKind = iota // you forgot (to) X
	didNot                              // you didn't X, why didn't you X
	missed                              // you missed / skipped / overlooked X
	shouldHave                          // you should have X
	shouldNotHave                       // you shouldn't have X
	broke                               // you broke X
	remember                            // remember to X, don't forget (to) X
)

const apos = `['’]`

var correctionRules = []struct {
	kind correctionKind
	re   *lazyRegexp
}{
	{remember, lazy(`(?:^[\s\-*+•\d.)_]*|, |\band |\bbut |\bso |\bthen )(?:(?:please|also|just|always|and|ok|okay|again)[, ]+)*(?:remember to|don` + apos + `?t forget(?: to)?|do not forget(?: to)?|never forget(?: to)?) (?P<x>.+)`)},
	{didNot, lazy(`\bwhy (?:didn` + apos + `?t you|did you not) (?P<x>.+)`)},
	{shouldNotHave, lazy(`\byou should(?:n` + apos + `?t| not) have (?P<x>.+)`)},
	{shouldHave, lazy(`\byou should(?:` + apos + `ve| have) (?P<x>.+)`)},
	{forgot, lazy(`\byou(?:` + apos + `ve| have)?(?: (?:just|also|again|totally|completely|always))? (?:forgot|forgotten|forget)(?P<to> to)? (?P<x>.+)`)},
	{missed, lazy(`\byou(?:` + apos + `ve| have)?(?: (?:just|also|again|totally|completely))? (?:missed|skipped|overlooked|left out) (?P<x>.+)`)},
	{didNot, lazy(`\byou (?:didn` + apos + `?t|did not) (?P<x>.+)`)},
	{broke, lazy(`\byou(?:` + apos + `ve| have)?(?: just)? (?:broke|broken) (?P<x>.+)`)},
}

// hedge matches what, before a trigger, makes it not a correction: a
// condition, a supposition, a denial, reported speech ("the log says: you
// forgot..."), or a question ("did you forget to push?").
var hedge = lazy(`\b(?:if|unless|whether|in case|when|whenever|maybe|perhaps|hopefully|hope|so that|as if|even though|before|not saying|not that|n` + apos + `?t say|not sure|i don` + apos + `?t think|doubt|wonder|fine that|ok that|okay that|glad|good that|great that|says|said|wrote|writes|reads|prints|printed)\b|(?:message|error|exception|warning|output|log|got|returned|shows):|\b(?:did|do|does|will|would|could|can|have|had)\s*$`)

// notLessons start a clause that follows a trigger without being an
// omission: reassurance ("you didn't break anything"), excuses ("you didn't
// need to"), double negation ("you didn't forget").
var notLessons = lazy(`^(?:need|have to|has to|had to|mean|want|say|said|ask|know|realize|realise|forget|miss|answer|respond|reply|listen|tell me|explain|do anything|anything|nothing|everything|break anything|change anything|touch anything|do it wrong|do anything wrong|do that on purpose|have any|have a|have an|have the|have access|receive|received|get|got|gotten|see that coming)\b`)

// notReminded starts what follows "don't forget" when it is not a task.
var notReminded = lazy(`^(?:me|us|him|her|them|you|about me|about us)\b`)

// clauseEnd cuts a lesson at the first word that starts another clause.
var clauseEnd = lazy(`(?i)(?:,| - | – | — | but | because | since | so that | which | otherwise | and then | and now | this time| again| as well| too| either| yet| though| then)`)

// Corrections finds the person correcting the agent in ch's USER_SIGNALS.
// A correction about an omission or a mistake becomes a pitfall when the
// file or folder it concerns is known (named in the message, or edited by
// the agent right after, or just before), and a procedural observation
// otherwise; a reminder for the future ("remember to", "don't forget") is
// procedural. Results are deduplicated within the session.
func Corrections(ch *transcript.Channels, opt Options) []Observation {
	return corrections(prepare(ch, opt), opt)
}

func corrections(ch *transcript.Channels, opt Options) []Observation {
	ctx := newContext(ch)
	ctx.root = opt.Root
	var out []Observation
	for i, s := range ch.UserSignals {
		m := mask(s.Text)
		for _, sp := range sentences(m) {
			if o, ok := correction(ctx, i, s, s.Text[sp.start:sp.end], lowerASCII(m[sp.start:sp.end]), opt); ok {
				out = append(out, o)
			}
		}
	}
	return dedupe(out)
}

func correction(ctx *context, i int, s transcript.UserSignal, sentence, low string, opt Options) (Observation, bool) {
	question := strings.HasSuffix(strings.TrimSpace(low), "?")
	for _, rule := range correctionRules {
		loc := rule.re.FindStringSubmatchIndex(low)
		if loc == nil {
			continue
		}
		if question && !strings.HasPrefix(low[loc[0]:], "why") {
			// "You forgot to update the docs? No worries": asked, not told.
			return Observation{}, false
		}
		if hedge.MatchString(low[:loc[0]]) {
			return Observation{}, false
		}
		xi := rule.re.SubexpIndex("x")
		x := lesson(sentence[loc[2*xi]:loc[2*xi+1]])
		if x == "" || notLessons.MatchString(strings.ToLower(x)) {
			return Observation{}, false
		}
		first := strings.Fields(strings.ToLower(x))[0]
		if (rule.kind == shouldHave || rule.kind == shouldNotHave) && !participle(first) {
			return Observation{}, false // "you should have access": having, not a missed action
		}
		if rule.kind == remember && notReminded.MatchString(strings.ToLower(x)) {
			return Observation{}, false // "don't forget me"
		}
		if rule.kind == didNot && !workVerb(x) {
			return Observation{}, false // "you didn't see", "why didn't you just say so"
		}
		withTo := false
		if ti := rule.re.SubexpIndex("to"); ti > 0 && loc[2*ti] >= 0 {
			withTo = true
		}
		return ctx.correction(i, s, rule.kind, withTo, x, sentence, opt), true
	}
	return Observation{}, false
}

var irregular = map[string]bool{
	"run": true, "made": true, "put": true, "set": true, "read": true, "kept": true, "left": true, "built": true,
	"told": true, "sent": true, "seen": true, "found": true, "thought": true, "brought": true, "bought": true,
	"caught": true, "held": true, "let": true, "shut": true, "cut": true, "split": true, "begun": true, "come": true,
	"become": true, "stuck": true, "hung": true, "dug": true, "spun": true, "won": true, "fed": true, "led": true,
	"met": true, "paid": true, "laid": true, "sold": true, "felt": true, "dealt": true, "meant": true, "lost": true,
	"spent": true, "understood": true, "stood": true, "sat": true, "lit": true, "shot": true, "quit": true,
	"hurt": true, "done": true, "gone": true, "been": true, "stopped": true, "said": true, "hit": true, "bet": true,
}

// workVerbs are what the agent is reproached for not doing. "You didn't"
// is the loosest trigger (you didn't see, mention, get, say...), so it only
// counts before one of these.
var workVerbs = map[string]bool{}

func init() {
	for _, v := range strings.Fields(`add update run test check remove delete handle include commit push fix change
		use follow read write call close wrap implement create rename export import bump regenerate generate
		install document format lint build deploy migrate validate escape sanitize log catch return pass set
		reset clean restore revert stage sign tag merge rebase squash wait verify ensure mock stub cover split
		save sort lock unlock release free flush sync reload restart start stop kill configure register
		initialise initialize declare define type annotate comment cleanup refactor extract move copy apply
		review look open edit keep respect rebuild recompile compile bundle publish upload tidy vendor pin
		upgrade downgrade specify handle guard await cancel close backup back throw raise propagate quote
		encode decode parse trim normalize normalise convert cast check`) {
		workVerbs[v] = true
	}
}

// workVerb reports whether the clause x starts with one of workVerbs, past
// an adverb ("you didn't even run the tests").
func workVerb(x string) bool {
	for _, w := range strings.Fields(strings.ToLower(x)) {
		switch w {
		case "even", "actually", "really", "properly", "fully", "correctly", "also", "yet", "ever":
			continue
		}
		return workVerbs[strings.Trim(w, "*_`'\"")]
	}
	return false
}

// participle reports a past participle ("used", "run", "written"): what
// "you should have" takes when it is a reproach.
func participle(w string) bool {
	w = strings.Trim(w, "*_`'\"")
	return irregular[w] || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en") || strings.HasSuffix(w, "wn")
}

// lesson cleans the clause after a trigger: cut at the next clause, without
// trailing punctuation or markup, at most 14 words.
func lesson(x string) string {
	// Matched case-insensitively on x itself: lower-casing can change the
	// length of text that is not valid UTF-8, and the index would cut
	// elsewhere (found by FuzzExtractText).
	if loc := clauseEnd.FindStringIndex(x); loc != nil {
		x = x[:loc[0]]
	}
	x = strings.Trim(x, " \t*_.!?:;,'\"“”()[]")
	words := strings.Fields(x)
	if len(words) > 14 {
		words = words[:14]
	}
	return strings.Join(words, " ")
}

func (c *context) correction(i int, s transcript.UserSignal, kind correctionKind, withTo bool, x, sentence string, opt Options) Observation {
	var pattern, resolution string
	switch kind {
	case forgot:
		if withTo {
			pattern, resolution = "Forgot to "+x, x
		} else {
			pattern, resolution = "Forgot "+x, "include "+x
		}
	case didNot:
		pattern, resolution = "Did not "+x, x
	case missed:
		pattern, resolution = "Missed "+x, "include "+x
	case shouldHave:
		pattern, resolution = "Should have "+x, "should have "+x
	case shouldNotHave:
		pattern, resolution = "Should not have "+x, "do not repeat it: should not have "+x
	case broke:
		pattern, resolution = "Broke "+x, "check that "+x+" still works before finishing"
	case remember:
		pattern, resolution = "Remember to "+x, x
	}
	pattern = clip(opt.redact(pattern), maxPattern)
	evidence := []string{opt.quote("user", sentence)}
	if a := c.before(s); a != "" {
		evidence = append(evidence, opt.quote("assistant", a))
	}
	o := Observation{
		Pattern:    pattern,
		Evidence:   evidence,
		SessionID:  s.SessionID,
		RecordUUID: s.UUID,
		Timestamp:  s.Timestamp,
		Extractor:  ExtractorCorrection,
	}
	specific := len(strings.Fields(x)) >= 2
	area := ""
	if kind != remember {
		area = c.area(i, s, sentence)
	}
	if area != "" {
		o.Type = Pitfall
		o.Details = opt.redact("area: " + area + "; issue: " + lowerFirst(pattern) + "; impact: the user had to point it out; resolution: " + resolution)
		o.QualityOK = specific
		return o
	}
	o.Type = Procedural
	trigger := c.toolsAround(i, s)
	if trigger == "" {
		trigger = "the task at hand"
	}
	o.Details = opt.redact("trigger: " + trigger + "; steps: " + resolution + "; source: the user corrected the agent")
	o.QualityOK = specific
	return o
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// context indexes a session for the questions a correction asks: what did
// the agent just say, which files did it touch around this message.
type context struct {
	root  string // the repository, for paths (Options.Root)
	ch    *transcript.Channels
	tools []transcript.ToolCall // main conversation only, in line order
	pairs map[string]string     // reply uuid -> the assistant text it answers
}

func newContext(ch *transcript.Channels) *context {
	c := &context{ch: ch, pairs: map[string]string{}}
	for _, t := range ch.Tools {
		if !t.Sidechain {
			c.tools = append(c.tools, t)
		}
	}
	for _, p := range ch.DialogPairs {
		if p.Reply != nil {
			c.pairs[p.Reply.UUID] = p.Assistant
		}
	}
	return c
}

// before returns the last sentence the agent said just before s.
func (c *context) before(s transcript.UserSignal) string {
	a := c.pairs[s.UUID]
	spans := sentences(mask(a))
	if len(spans) == 0 {
		return ""
	}
	last := spans[len(spans)-1]
	return strings.TrimSpace(a[last.start:last.end])
}

// window returns the main-conversation tool calls between two lines.
func (c *context) window(from, to int) []transcript.ToolCall {
	var out []transcript.ToolCall
	for _, t := range c.tools {
		if t.Line > from && (to <= 0 || t.Line < to) {
			out = append(out, t)
		}
	}
	return out
}

// lines returns the lines of the signals before and after signal i.
func (c *context) lines(i int) (prev, next int) {
	if i > 0 {
		prev = c.ch.UserSignals[i-1].Line
	}
	if i+1 < len(c.ch.UserSignals) {
		next = c.ch.UserSignals[i+1].Line
	}
	return prev, next
}

var editTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// area is the file or folder a correction concerns: one the person names,
// else what the agent edits in answer to it, else what it edited just
// before.
func (c *context) area(i int, s transcript.UserSignal, sentence string) string {
	if p := namedPath(sentence); p != "" {
		return relative(c.root, p, s.Cwd)
	}
	prev, next := c.lines(i)
	for _, w := range [][]transcript.ToolCall{c.window(s.Line, next), c.window(prev, s.Line)} {
		var files []string
		for _, t := range w {
			if editTools[t.Name] {
				for _, p := range t.Paths {
					files = append(files, relative(c.root, p, t.Cwd))
				}
			}
		}
		if a := commonArea(files); a != "" {
			return a
		}
	}
	return ""
}

// toolsAround names the tools the agent used just before the message, as
// the trigger of a procedural lesson ("after Edit, Bash: go test").
func (c *context) toolsAround(i int, s transcript.UserSignal) string {
	prev, _ := c.lines(i)
	var names []string
	seen := map[string]bool{}
	for _, t := range c.window(prev, s.Line) {
		n := t.Name
		if t.Command != "" {
			n += ": " + firstWords(t.Command, 3)
		} else if len(t.Paths) > 0 {
			n += " " + path.Base(t.Paths[0])
		}
		if n != "" && !seen[n] && len(names) < 4 {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "after " + strings.Join(names, ", ")
}

func firstWords(s string, n int) string {
	f := strings.Fields(strings.SplitN(s, "\n", 2)[0])
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// relative shows p as lessons store it (repopath.Stored): relative to the
// repository root, else to the session's folder (another clone), else by
// its last two elements, so that home folders stay out of what is stored;
// with forward slashes whatever the system, so that a lesson learned on
// Windows fires on Linux.
func relative(root, p, cwd string) string { return repopath.Stored(root, cwd, p) }

// commonArea is the one file, or the deepest folder holding all files, or
// when they share none, the first few of them.
func commonArea(files []string) string {
	if len(files) == 0 {
		return ""
	}
	common := files[0]
	for _, f := range files[1:] {
		for common != f && !strings.HasPrefix(f, common+"/") {
			d := path.Dir(common)
			if d == common || d == "." || d == "/" {
				return strings.Join(distinct(files, 3), ", ")
			}
			common = d
		}
	}
	return common
}

func distinct(ss []string, n int) []string {
	var out []string
	for _, s := range ss {
		if len(out) == n {
			break
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

var (
	fileExt = lazy(`^[\w.-]*[\w-]\.(?:go|mod|sum|md|json|ya?ml|toml|ts|tsx|js|jsx|mjs|py|rb|rs|java|kt|c|h|cc|cpp|hpp|cs|sh|sql|html|css|scss|txt|lock|cfg|ini|env|xml|gradle|swift|php|proto|graphql|gql|tf|vue|svelte|dart|ex|exs|erl|hs|ml|lua|scala|clj|zig|nix|bzl|cmake|mk|csv|sqlite|ipynb)$`)
	// Library names that look like files.
	jsLibraries = map[string]bool{"node.js": true, "next.js": true, "vue.js": true, "react.js": true, "express.js": true, "nuxt.js": true, "d3.js": true, "three.js": true, "chart.js": true, "nest.js": true, "deno.js": true}
	knownFiles  = map[string]bool{"Makefile": true, "Dockerfile": true, "Justfile": true, "Rakefile": true, "Gemfile": true, "CHANGELOG": true, "README": true, "LICENSE": true}
)

// namedPath returns a file or folder the text names, or "". A word with a
// slash is a path only when it cannot be prose ("and/or"): in backticks, or
// with a dot, a trailing slash or two slashes.
func namedPath(s string) string {
	for _, w := range strings.Fields(s) {
		quoted := strings.HasPrefix(w, "`")
		w = strings.TrimLeft(w, "`'\"“([{<*")
		w = strings.TrimRight(w, "`'\"”)]}>,;:!?*.")
		if w == "" || strings.Contains(w, "://") {
			continue
		}
		if strings.Contains(w, `\`) {
			w = repopath.Slash(w) // a Windows path
		}
		if strings.Contains(w, "/") {
			if quoted || strings.Contains(w, ".") || strings.HasSuffix(w, "/") || strings.Count(w, "/") >= 2 {
				return w
			}
			continue
		}
		if (fileExt.MatchString(w) && !jsLibraries[strings.ToLower(w)]) || knownFiles[w] {
			return w
		}
	}
	return ""
}
