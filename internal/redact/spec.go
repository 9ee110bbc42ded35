package redact

// ruleSpec is a detection rule as plain data. The gitleaks rules are generated
// into this shape (rules_gitleaks.go) so that nothing is parsed or compiled
// until a keyword of the rule shows up in the text being redacted.
type ruleSpec struct {
	ID          string
	Regex       string
	Entropy     float64 // the secret must have more Shannon entropy than this (0: no check)
	SecretGroup int     // capture group holding the secret; 0: the first non-empty group, or the match
	Keywords    []string
	Allow       []allowSpec
}

// allowSpec is one gitleaks allowlist that can apply without a file path:
// the finding is dropped when any regex matches the target or the secret
// contains any stop word.
type allowSpec struct {
	Target    string // "" (the secret), "match" or "line"
	Regexes   []string
	StopWords []string // lower case
}
