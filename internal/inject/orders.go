package inject

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// runPatterns are the shapes of "fetch this and run it": a download piped
// into an interpreter, a process substitution of one, a decoded payload
// piped into a shell, PowerShell's download-and-evaluate.
var runPatterns = sync.OnceValue(func() []*regexp.Regexp {
	const interp = `(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+\S+\s+)*(?:ba|z|k|da|fi)?sh|python[0-9.]*|perl|ruby|node|php|iex|invoke-expression|pwsh|powershell`
	const fetch = `curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch|http|aria2c|lwp-request`
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:` + fetch + `)\b[^\n|]*\|\s*(?:` + interp + `)\b`),
		regexp.MustCompile(`(?i)\bbase64\s+(?:-d|--decode|-D)\b[^\n|]*\|\s*(?:` + interp + `)\b`),
		regexp.MustCompile(`(?i)(?:\b(?:ba|z)?sh|\bsource|\beval|(?:^|\s)\.)\s+(?:-c\s+)?["']?[<$]\(\s*(?:` + fetch + `)\b`),
		regexp.MustCompile(`(?i)\b(?:iex|invoke-expression)\s*\(?\s*\(?\s*(?:new-object\s+net\.webclient|iwr|irm|invoke-webrequest|invoke-restmethod)\b`),
		regexp.MustCompile(`(?i)\bdownload\s+(?:it\s+|this\s+|that\s+|the\s+\w+\s+)?(?:and|then)\s+(?:run|execute|exec)\b`),
		regexp.MustCompile(`(?i)\b(?:descarga|descargar|télécharge[rz]?|telecharge[rz]?|lade|herunterladen|baixe|baixar|скачай|скачайте)\b[^\n.]{0,30}\b(?:y|et|und|e|и)\s+(?:ejecuta|ejecutar|exécute[rz]?|execute[rz]?|führe|ausführen|execute|executar|запусти|запустите|выполни)`),
	}
})

// runNeeds is, for each of runPatterns, the lower-case literals one of
// which a match must hold: a text with none of them skips the pattern.
// Held runs on every entry when the knowledge cache is built, and most
// entries hold none.
var runNeeds = [][]string{
	{"|"},
	{"|"},
	{"$(", "<("},
	{"iex", "invoke-expression"},
	{"download"},
	{"descarga", "télécharge", "telecharge", "lade", "herunterladen", "baixe", "baixar", "скачай"},
}

// containsAny reports whether s holds one of the literals.
func containsAny(s string, literals []string) bool {
	for _, l := range literals {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// ignoreRule is one language's way of saying "ignore the other
// instructions": a verb, then within window runes an object. An empty
// objects list makes the verb phrase enough on its own.
type ignoreRule struct {
	lang    string
	verbs   []string
	objects []string
	window  int
}

// ignoreRules are matched on the text lower-cased with its spaces folded.
var ignoreRules = []ignoreRule{
	{"en", []string{"ignore", "disregard", "forget", "override", "bypass"}, []string{
		"previous instructions", "prior instructions", "earlier instructions", "preceding instructions", "above instructions",
		"all instructions", "any instructions", "your instructions", "other instructions", "system prompt", "system instructions",
		"the above", "everything above", "all of the above", "previous rules", "your rules", "previous messages", "all prior"}, 24},
	{"es", []string{"ignora", "ignore", "ignorar", "ignoren", "olvida", "olvide", "olvidar", "descarta"}, []string{
		"instrucciones anteriores", "instrucciones previas", "todas las instrucciones", "las instrucciones", "lo anterior", "indicaciones anteriores"}, 24},
	{"fr", []string{"ignore", "ignorez", "ignorer", "oublie", "oubliez", "oublier"}, []string{
		"instructions précédentes", "instructions precedentes", "instructions antérieures", "toutes les instructions", "les instructions", "ce qui précède", "consignes précédentes"}, 24},
	{"de", []string{"ignoriere", "ignorieren", "ignoriert", "vergiss", "vergessen", "missachte"}, []string{
		"vorherigen anweisungen", "bisherigen anweisungen", "alle anweisungen", "obigen anweisungen", "vorigen anweisungen", "die anweisungen", "vorherigen instruktionen"}, 24},
	{"pt", []string{"ignore", "ignora", "ignorar", "esqueça", "esqueca", "desconsidere"}, []string{
		"instruções anteriores", "instrucoes anteriores", "todas as instruções", "todas as instrucoes", "as instruções", "o que foi dito acima"}, 24},
	{"zh", []string{"忽略", "无视", "忽视", "不要理会", "忘记", "忽略掉"}, []string{
		"指令", "指示", "提示词", "以上", "上述", "之前的"}, 10},
	{"ja", []string{"指示を無視", "命令を無視", "指示は無視", "指示を忘れ", "上記を無視", "プロンプトを無視"}, nil, 0},
	{"ru", []string{"игнорируй", "игнорируйте", "проигнорируй", "забудь", "забудьте", "не обращай внимания на"}, []string{
		"предыдущие инструкции", "все инструкции", "предыдущие указания", "вышеуказанное", "инструкции выше", "все предыдущие"}, 24},
}

// Instructions lists the orders of a text: to fetch and run code, or to
// ignore the other instructions.
func Instructions(s string) []Finding {
	var out []Finding
	low := strings.ToLower(s)
	for i, re := range runPatterns() {
		if !containsAny(low, runNeeds[i]) {
			continue
		}
		for _, m := range re.FindAllStringIndex(s, 4) {
			out = append(out, Finding{Line: lineAt(s, m[0]), Kind: KindRun, Text: cut(strings.TrimSpace(s[m[0]:m[1]]))})
		}
	}
	if slices.ContainsFunc(ignoreRules, func(r ignoreRule) bool { return containsAny(low, r.verbs) }) {
		out = append(out, ignoreOrders(s)...)
	}
	sortFindings(out)
	return out
}

// ignoreOrders matches ignoreRules line by line.
func ignoreOrders(s string) []Finding {
	var out []Finding
	for n, line := range strings.Split(s, "\n") {
		low := fold(line)
		if low == "" {
			continue
		}
	rules:
		for _, r := range ignoreRules {
			for _, v := range r.verbs {
				for from := 0; ; {
					k := strings.Index(low[from:], v)
					if k < 0 {
						break
					}
					at := from + k
					from = at + len(v)
					if !wordEdge(low, at, at+len(v), r.lang) {
						continue
					}
					if len(r.objects) == 0 {
						out = append(out, Finding{Line: n + 1, Kind: KindIgnore, Text: cut(strings.TrimSpace(line))})
						break rules
					}
					rest := low[at+len(v):]
					win := rest
					if w := runeOffset(rest, r.window+maxLen(r.objects)); w < len(rest) {
						win = rest[:w]
					}
					for _, o := range r.objects {
						if k := strings.Index(win, o); k >= 0 && utf8.RuneCountInString(win[:k]) <= r.window {
							out = append(out, Finding{Line: n + 1, Kind: KindIgnore, Text: cut(strings.TrimSpace(line))})
							break rules
						}
					}
				}
			}
		}
	}
	return out
}

// fold lower-cases a line and folds runs of spaces into one.
func fold(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// wordEdge: the verb is a whole word (scripts without spaces between
// words have no edges to check).
func wordEdge(s string, start, end int, lang string) bool {
	if lang == "zh" || lang == "ja" {
		return true
	}
	if start > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:start])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	if end < len(s) {
		r, _ := utf8.DecodeRuneInString(s[end:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func maxLen(list []string) int {
	m := 0
	for _, s := range list {
		m = max(m, utf8.RuneCountInString(s))
	}
	return m
}

func sortFindings(f []Finding) {
	for i := 1; i < len(f); i++ {
		for j := i; j > 0 && f[j].Line < f[j-1].Line; j-- {
			f[j], f[j-1] = f[j-1], f[j]
		}
	}
}
