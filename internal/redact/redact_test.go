package redact

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// testPAT has a GitHub token's shape and is random enough for its entropy
// floor (a token spelling the alphabet is on gitleaks' stop list).
const testPAT = "ghp_Zq8LmN2pR4tV6xB1cD3fG5hJ7kM9nP0qS2uW"

// redactCase is one Text case; {{templates}} in in are expanded with a
// generator seeded by the case name (see gen_secrets_test.go).
type redactCase struct {
	name, in, want string
}

func runCases(t *testing.T, cases []redactCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seed := uint64(0)
			for _, b := range []byte(c.name) {
				seed = seed*31 + uint64(b)
			}
			in := expand(c.in, rand.New(rand.NewPCG(seed, 1)))
			if got := Text(in); got != c.want {
				t.Errorf("Text(%q)\n got %q\nwant %q\nfindings %v", in, got, c.want, Find(in))
			}
		})
	}
}

func TestProviderTokens(t *testing.T) {
	runCases(t, []redactCase{
		{"github-pat", "GITHUB_TOKEN=ghp_{{alnum 36}}", "GITHUB_TOKEN=[REDACTED:github-pat]"},
		{"github-pat in url", "https://ghp_{{alnum 36}}@github.com/a/b", "https://[REDACTED:github-pat]@github.com/a/b"},
		{"aws key id", "aws_access_key_id = AKIA{{base32 16}}", "aws_access_key_id = [REDACTED:aws-access-token]"},
		{"aws example key is documentation", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"},
		{"slack bot", "xoxb-{{digits 12}}-{{digits 12}}-{{alnum 24}}", "[REDACTED:slack-bot-token]"},
		{"stripe", `key: "sk_live_{{alnum 24}}"`, `key: "[REDACTED:stripe-access-token]"`},
		{"anthropic", "ANTHROPIC_API_KEY=sk-ant-api03-{{b64url 93}}AA", "ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]"},
		{"gcp", `"AIza{{b64url 35}}"`, `"[REDACTED:gcp-api-key]"`},
		{"npm", "//registry.npmjs.org/:_authToken=npm_{{lalnum 36}}", "//registry.npmjs.org/:_authToken=[REDACTED:npm-access-token]"},
		{"jwt", "id_token eyJ{{alnum 30}}.eyJ{{alnum 50}}.{{b64url 43}} end", "id_token [REDACTED:jwt] end"},
		{"low entropy look-alike", "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"},
		{"two in a row", "ghp_{{alnum 36}} glpat-{{b64url 20}}", "[REDACTED:github-pat] [REDACTED:gitlab-pat]"},
	})
}

func TestPrivateKeys(t *testing.T) {
	runCases(t, []redactCase{
		{"whole", "key:\n-----BEGIN RSA PRIVATE KEY-----\n{{pem 8}}\n-----END RSA PRIVATE KEY-----\nnext", "key:\n[REDACTED:private-key]\nnext"},
		{"truncated", "-----BEGIN OPENSSH PRIVATE KEY-----\n{{pem 3}}\n... (truncated)", "[REDACTED:private-key]\n... (truncated)"},
		{"json escaped", `{"private_key":"-----BEGIN PRIVATE KEY-----\n{{pemesc 5}}\n-----END PRIVATE KEY-----\n"}`, `{"private_key":"[REDACTED:private-key]\n"}`},
		{"encrypted pem", "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{{HEX 32}}\n\n{{pem 4}}\n-----END RSA PRIVATE KEY-----", "[REDACTED:private-key]"},
		{"public key stays", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----"},
		{"elided example stays", "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----"},
		{"marker in code stays", `strings.HasPrefix(s, "-----BEGIN RSA PRIVATE KEY-----")`, `strings.HasPrefix(s, "-----BEGIN RSA PRIVATE KEY-----")`},
	})
}

func TestURLPasswords(t *testing.T) {
	runCases(t, []redactCase{
		{"postgres", "postgres://app:{{alnum 16}}@db:5432/app", "postgres://app:[REDACTED:url-password]@db:5432/app"},
		{"empty user", "redis://:{{alnum 20}}@cache:6379", "redis://:[REDACTED:url-password]@cache:6379"},
		{"weak but real", "mysql://root:hunter2!@localhost/shop", "mysql://root:[REDACTED:url-password]@localhost/shop"},
		{"placeholder", "https://user:password@example.com", "https://user:password@example.com"},
		{"variables", "https://${USER}:${PASS}@host/", "https://${USER}:${PASS}@host/"},
		{"user equals password", "postgres://postgres:postgres@localhost/db", "postgres://postgres:postgres@localhost/db"},
		{"port is no password", "http://localhost:8080/api@v2", "http://localhost:8080/api@v2"},
		{"user only", "ssh://git@github.com:22/a/b.git", "ssh://git@github.com:22/a/b.git"},
	})
}

func TestHeaders(t *testing.T) {
	runCases(t, []redactCase{
		{"bearer", `-H "Authorization: Bearer {{alnum 40}}"`, `-H "Authorization: Bearer [REDACTED:authorization-header]"`},
		{"basic", "Authorization: Basic {{b64 24}}=", "Authorization: Basic [REDACTED:authorization-header]"},
		{"header map", `{"Authorization": "token {{alnum 40}}"}`, `{"Authorization": "token [REDACTED:authorization-header]"}`},
		{"bearer elsewhere", `{"X-Auth": "Bearer {{alnum 32}}"}`, `{"X-Auth": "Bearer [REDACTED:bearer-token]"}`},
		{"provider format wins", "Authorization: Bearer ghp_{{alnum 36}}", "Authorization: Bearer [REDACTED:github-pat]"},
		{"variable", "Authorization: Bearer $TOKEN", "Authorization: Bearer $TOKEN"},
		{"template", `-H "Authorization: Bearer ${GITHUB_TOKEN}"`, `-H "Authorization: Bearer ${GITHUB_TOKEN}"`},
		{"angle placeholder", "Authorization: Bearer <token>", "Authorization: Bearer <token>"},
		{"env name placeholder", "Authorization: Bearer YOUR_ACCESS_TOKEN", "Authorization: Bearer YOUR_ACCESS_TOKEN"},
		{"elided", "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...", "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9..."},
		{"prose", "Bearer tokens go in the Authorization header.", "Bearer tokens go in the Authorization header."},
	})
}

func TestPasswordAssignments(t *testing.T) {
	runCases(t, []redactCase{
		{"dotenv", "DB_PASSWORD=hunter2x", "DB_PASSWORD=[REDACTED:password-assignment]"},
		{"export quoted", "export PGPASSWORD='s3cr3t-pa55'", "export PGPASSWORD='[REDACTED:password-assignment]'"},
		{"yaml", "  password: Tr0ub4dor&3", "  password: [REDACTED:password-assignment]"},
		{"json with spaces", `{"password": "correct horse battery staple"}`, `{"password": "[REDACTED:password-assignment]"}`},
		{"json escaped", `{\"password\": \"Pa$$w0rd-9x\"}`, `{\"password\": \"[REDACTED:password-assignment]\"}`},
		{"properties", "spring.datasource.password=Sup3rS3cret!", "spring.datasource.password=[REDACTED:password-assignment]"},
		{"camel case", `dbPassword: "letmein42"`, `dbPassword: "[REDACTED:password-assignment]"`},
		{"short name", "db_pass: letmein42", "db_pass: [REDACTED:password-assignment]"},
		{"go", `password := "qwerty-2024"`, `password := "[REDACTED:password-assignment]"`},
		{"placeholder", "password: <your password here>", "password: <your password here>"},
		{"changeme", `password = "changeme"`, `password = "changeme"`},
		{"reference", "DB_PASSWORD=${DB_PASSWORD}", "DB_PASSWORD=${DB_PASSWORD}"},
		{"mask", "password: ********", "password: ********"},
		{"yaml tag", "ansible_become_password: !vault |", "ansible_become_password: !vault |"},
		{"call", `password := os.Getenv("DB_PASSWORD")`, `password := os.Getenv("DB_PASSWORD")`},
		{"field path", "const secret = process.env.JWT_SECRET;", "const secret = process.env.JWT_SECRET;"},
		{"variable", "self.password = password", "self.password = password"},
		{"snake variable", "password = user_input", "password = user_input"},
		{"type hint", "def f(password: str) -> None:", "def f(password: str) -> None:"},
		{"ts type", "  password: string;", "  password: string;"},
		{"comparison", `if password == "" {`, `if password == "" {`},
		{"not a password name", "passwordHash: hunter22", "passwordHash: hunter22"},
		{"file, not value", "PASSWORD_FILE=/run/secrets/db", "PASSWORD_FILE=/run/secrets/db"},
		{"bypass", "bypass_cache=true", "bypass_cache=true"},
		{"boolean", "secret: true", "secret: true"},
	})
}

func TestGenericKeys(t *testing.T) {
	runCases(t, []redactCase{
		{"api key", "api_key: {{alnum 32}}", "api_key: [REDACTED:generic-api-key]"},
		{"secret key base", "SECRET_KEY_BASE={{hex 128}}", "SECRET_KEY_BASE=[REDACTED:generic-api-key]"},
		{"client secret", `client_secret = "{{alnum 32}}"`, `client_secret = "[REDACTED:generic-api-key]"`},
		{"token count", `{"input_tokens":1234,"output_tokens":567}`, `{"input_tokens":1234,"output_tokens":567}`},
		{"identifier value", "primary_key: user_id_and_timestamp_index", "primary_key: user_id_and_timestamp_index"},
		{"name without value", "export API_KEY=", "export API_KEY="},
		{"lookup", `os.Getenv("AWS_SECRET_ACCESS_KEY")`, `os.Getenv("AWS_SECRET_ACCESS_KEY")`},
	})
}

func TestPlaceholdersAreNeverRedacted(t *testing.T) {
	for _, s := range []string{
		"token=[REDACTED:github-pat]",
		"DB_PASSWORD=[REDACTED:password-assignment] API_KEY=[REDACTED:generic-api-key]",
		"Authorization: Bearer [REDACTED:authorization-header]",
		"postgres://app:[REDACTED:url-password]@db/app",
		"[REDACTED:private-key]\n[REDACTED:literal][REDACTED:pattern]",
	} {
		if f := Find(s); f != nil {
			t.Errorf("Find(%q) = %v, want nothing", s, f)
		}
	}
}

// TestIdempotent redacts every corpus line and every table case twice.
func TestIdempotent(t *testing.T) {
	var all []string
	for _, c := range loadCorpus(t) {
		once := Text(c.text)
		if twice := Text(once); twice != once {
			t.Errorf("line %d: Text is not idempotent:\nonce  %q\ntwice %q", c.line, once, twice)
		}
		if f := Find(once); f != nil {
			t.Errorf("line %d: redacted text still has findings %v: %q", c.line, f, once)
		}
		all = append(all, c.text)
	}
	joined := strings.Join(all, "\n")
	once := Text(joined)
	if Text(once) != once {
		t.Error("Text is not idempotent on the joined corpus")
	}
}

func TestFindIsOrderedAndDisjoint(t *testing.T) {
	var all []string
	for _, c := range loadCorpus(t) {
		all = append(all, c.text)
	}
	s := strings.Join(all, "\n")
	fs := Find(s)
	if len(fs) < 60 {
		t.Fatalf("only %d findings in the joined corpus", len(fs))
	}
	for i, f := range fs {
		if f.Start < 0 || f.End > len(s) || f.Start >= f.End {
			t.Fatalf("finding %v out of range", f)
		}
		if i > 0 && fs[i-1].End > f.Start {
			t.Fatalf("findings %v and %v overlap", fs[i-1], f)
		}
	}
}

// TestOverlapsMergeUnderTheSpecificName: where rules disagree the union is
// redacted, named by the most specific rule.
func TestOverlapsMergeUnderTheSpecificName(t *testing.T) {
	cases := []struct {
		cands []candidate
		want  []Finding
	}{
		{
			[]candidate{{Finding{"generic-api-key", 5, 20}, rankGeneric}, {Finding{"github-pat", 8, 24}, rankSpecific}},
			[]Finding{{"github-pat", 5, 24}},
		},
		{
			[]candidate{{Finding{"b", 0, 4}, rankSpecific}, {Finding{"a", 0, 4}, rankSpecific}, {Finding{"c", 4, 6}, rankGeneric}},
			[]Finding{{"a", 0, 4}, {"c", 4, 6}},
		},
		{
			[]candidate{{Finding{"short", 0, 3}, rankSpecific}, {Finding{"long", 1, 9}, rankSpecific}, {Finding{"user", 8, 10}, rankUser}},
			[]Finding{{"user", 0, 10}},
		},
	}
	for _, c := range cases {
		if got := merge(slices.Clone(c.cands)); !slices.Equal(got, c.want) {
			t.Errorf("merge(%v) = %v, want %v", c.cands, got, c.want)
		}
	}
}

func TestExtra(t *testing.T) {
	r, err := New(Extra{
		Literals: []string{"corp-internal-42", "Ωmega-pass"},
		Patterns: []string{`ticket-secret-[0-9]+`, `session=([a-f0-9]{8})`},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"the code is corp-internal-42.", "the code is [REDACTED:literal]."},
		{"CORP-INTERNAL-42 differs in case", "CORP-INTERNAL-42 differs in case"},
		{"xΩmega-passx", "x[REDACTED:literal]x"},
		{"see ticket-secret-991 now", "see [REDACTED:pattern] now"},
		{"cookie session=deadbeef; path=/", "cookie session=[REDACTED:pattern]; path=/"},
		{"and " + testPAT, "and [REDACTED:github-pat]"},
	} {
		if got := r.Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := r.Text(r.Text(c.in)); got != c.want {
			t.Errorf("Text is not idempotent on %q: %q", c.in, got)
		}
	}
	// The default redactor knows nothing of them.
	if got := Text("corp-internal-42"); got != "corp-internal-42" {
		t.Errorf("default redactor scrubbed a literal it was never given: %q", got)
	}

	for _, bad := range []Extra{
		{Literals: []string{"abc"}},
		{Literals: []string{"x [REDACTED:github-pat]"}},
		{Patterns: []string{`(unclosed`}},
		{Patterns: []string{`a*`}},
	} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) accepted a bad extra", bad)
		}
	}
}

func TestBuiltinRules(t *testing.T) {
	r, err := New(Extra{})
	if err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`^[a-z0-9-]+$`)
	anchored := 0
	for _, ru := range r.rules {
		// Each panics on a regex Go cannot compile.
		ru.prepare()
		ru.whole()
		ru.allowlists()
		if !id.MatchString(ru.spec.ID) {
			t.Errorf("rule id %q would not read as a placeholder", ru.spec.ID)
		}
		if loc := placeholderRE().FindStringIndex("x" + Placeholder(ru.spec.ID) + "x"); loc == nil || loc[0] != 1 {
			t.Errorf("placeholder of %q is not recognised", ru.spec.ID)
		}
		for _, k := range ru.spec.Keywords {
			if len(k) < 2 || k != asciiLower(k) {
				t.Errorf("rule %s: keyword %q must be lower case and at least 2 bytes", ru.spec.ID, k)
			}
		}
		if len(ru.spec.Keywords) == 0 {
			t.Errorf("rule %s has no keyword: it would run on every text", ru.spec.ID)
		}
		if ru.core != nil {
			anchored++
		}
	}
	t.Logf("%d rules (%d gitleaks, %d gitleaks rules need a path and are left out), %d anchored at their keywords",
		len(r.rules), len(gitleaksRules), len(gitleaksSkipped), anchored)
	if anchored < len(r.rules)*9/10 {
		t.Errorf("only %d of %d rules are anchored; the fast path depends on most being so", anchored, len(r.rules))
	}
}

func TestRegexWidth(t *testing.T) {
	for _, c := range []struct {
		re   string
		want int
	}{
		{`abc`, 3},
		{`a{2,5}`, 5},
		{`a*`, -1},
		{`a{3,}`, -1},
		{`(?i)k`, 4},
		{`\x{100}`, 2},
		{`a|bcd`, 3},
		{`\bx\b`, 1},
		{`(x)?y`, 2},
		{`[a-z]{4097}`, -1},
	} {
		if got := regexWidth(c.re); got != c.want {
			t.Errorf("regexWidth(%q) = %d, want %d", c.re, got, c.want)
		}
	}
}

func TestSplitLead(t *testing.T) {
	for _, c := range []struct {
		re, lead, core string
		keywords       []string
		width          int
		ok             bool
	}{
		{`[\w.-]{0,50}?(?i:key|token)=([a-z]+)`, `[\-\.0-9A-Z_a-z]{0,50}?`, `(?i:KEY|TOKEN)=([a-z]+)`, []string{"key", "token"}, 50, true},
		// A folded class may match ſ or the Kelvin sign, so it counts 3 bytes a rune.
		{`(?i)[a-z]{0,5}key`, "[A-Za-z\u017f\u212a]{0,5}", `(?i:KEY)`, []string{"key"}, 15, true},
		{`ghp_[0-9a-zA-Z]{36}`, ``, `ghp_[0-9A-Za-z]{36}`, []string{"ghp_"}, 0, true},
		{`\b(ey[a-z]+)`, `\b`, `(ey[a-z]+)`, []string{"ey"}, 0, true},
		{`(?:abc|xyz)d`, ``, ``, []string{"abc"}, 0, false},
		{`(?:abc|xyz)d`, ``, `(?:abc|xyz)d`, []string{"abc", "xyz"}, 0, true},
		{`[a-z]{3}foo`, ``, ``, []string{"bar"}, 0, false},
		{`(x)foo`, ``, ``, []string{"foo"}, 0, false}, // a lead may hold no group
		{`.foo`, `(?-s:.)`, `foo`, []string{"foo"}, 4, true},
		{`.*foo`, ``, ``, []string{"foo"}, 0, false}, // an unbounded lead
	} {
		lead, core, w, ok := splitLead(c.re, c.keywords)
		if ok != c.ok || ok && (lead != c.lead || core != c.core || w != c.width) {
			t.Errorf("splitLead(%q, %q) = %q, %q, %d, %v; want %q, %q, %d, %v",
				c.re, c.keywords, lead, core, w, ok, c.lead, c.core, c.width, c.ok)
		}
	}
}

func TestKeywordIndex(t *testing.T) {
	var k keywordIndex
	k.add("key", 0)
	k.add("ey", 1)
	k.add("Token", 2)
	k.add("token", 3)
	k.add("Ωmega", 4)
	got := k.scan("KEY tOkEn xkeyx ΩMEGA Ωmega toke", nil)
	want := []hit{{0, 3, 0}, {1, 3, 1}, {4, 9, 2}, {11, 14, 0}, {12, 14, 1}, {16, 22, 3}, {23, 29, 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("scan = %v, want %v", got, want)
	}
	if !slices.Equal(k.rules[k.ids["token"]], []int{2, 3}) {
		t.Errorf("token triggers %v, want rules 2 and 3", k.rules[k.ids["token"]])
	}
	if h := k.scan("ke", nil); h != nil {
		t.Errorf("a keyword cut by the end of the text was found: %v", h)
	}
}

func TestTextWithoutSecretsIsFree(t *testing.T) {
	s := "When bumping the version, update pyproject.toml, plugin.json and the changelog; run make test before tagging."
	Text(s) // first use: build the redactor
	if got := Text(s); got != s {
		t.Fatalf("Text changed clean text: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { Text(s) }); n != 0 {
		t.Errorf("Text allocates %v times on text without keywords, want 0", n)
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	r, err := New(Extra{})
	if err != nil {
		t.Fatal(err)
	}
	in := "GITHUB_TOKEN=" + testPAT + " api_key: Zq8LmN2pR4tV6xB1cD3fG5hJ7kM9nP0q"
	want := "GITHUB_TOKEN=[REDACTED:github-pat] api_key: [REDACTED:generic-api-key]"
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := r.Text(in); got != want {
				t.Errorf("concurrent Text = %q, want %q", got, want)
			}
		})
	}
	wg.Wait()
}

// A secret the rules find by its context (password=…) is replaced where
// it stands alone in the same text too.
func TestASecretIsReplacedWhereverItStands(t *testing.T) {
	in := "summary: deploy needs the pw hunter2Xy9Qp\nbody: set password=hunter2Xy9Qp in the env"
	out := Text(in)
	if strings.Contains(out, "hunter2Xy9Qp") {
		t.Fatalf("%q", out)
	}
	if Text(out) != out {
		t.Fatalf("not idempotent: %q", Text(out))
	}
}

func TestWholePlaceholders(t *testing.T) {
	for in, want := range map[string]string{
		"export KEY=[REDACTED:generic-api-key":    "export KEY=",
		"export KEY=[REDAC":                       "export KEY=",
		"export KEY=[":                            "export KEY=",
		"a [REDACTED:aws-access-token] and [REDA": "a [REDACTED:aws-access-token] and ",
		"a [REDACTED:aws-access-token] done":      "a [REDACTED:aws-access-token] done",
		"see [the docs":                           "see [the docs",
		"no bracket":                              "no bracket",
	} {
		if got := WholePlaceholders(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
