package redact

import (
	"math/rand/v2"
	"testing"
)

// awsExample is an AWS-style secret access key made up for the tests
// (AWS's own documentation key ends in EXAMPLEKEY, which marks it as an
// example and so is not redacted).
const awsExample = "Zq8vR2mXy4Tb7Nc1Kp/Lw5Hd3Gs9Fj6Ae0Ui+Ox3"

func TestShapes(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		// Published test card numbers, each brand, each way of writing.
		{"4111 1111 1111 1111", "[REDACTED:card-number]"},
		{"4111-1111-1111-1111", "[REDACTED:card-number]"},
		{"visa 4012888888881881.", "visa [REDACTED:card-number]."},
		{"mc 5555 5555 5555 4444, 2223003122003222", "mc [REDACTED:card-number], [REDACTED:card-number]"},
		{"amex 3782 822463 10005 or 3782-822463-10005", "amex [REDACTED:card-number] or [REDACTED:card-number]"},
		{"discover 6011111111111117 jcb 3530 1113 3330 0000", "discover [REDACTED:card-number] jcb [REDACTED:card-number]"},
		{"diners 3056 930902 5904, unionpay 6200 0000 0000 0005", "diners [REDACTED:card-number], unionpay [REDACTED:card-number]"},
		{"card=4111111111111111&exp=1230", "card=[REDACTED:card-number]&exp=1230"},
		{"4111 1111 1111 1111 12/30", "[REDACTED:card-number] 12/30"},
		// IBANs of several countries, grouped or not.
		{"GB82 WEST 1234 5698 7654 32", "[REDACTED:iban]"},
		{"iban DE89370400440532013000;", "iban [REDACTED:iban];"},
		{"FR14 2004 1010 0505 0001 3M02 606 EUR", "[REDACTED:iban] EUR"},
		{"NL91ABNA0417164300 and BE68539007547034", "[REDACTED:iban] and [REDACTED:iban]"},
		// A bare AWS secret access key.
		{"key " + awsExample, "key [REDACTED:aws-secret-key]"},
		{`"` + awsExample + `"`, `"[REDACTED:aws-secret-key]"`},

		// An app-specific password, as Apple makes them.
		{"zelr-szjg-eeve-mlej hearts of swift", "[REDACTED:app-password] hearts of swift"},
		{"notarize with vxtq-hbmw-kcpr-lnzd.", "notarize with [REDACTED:app-password]."},

		// Look-alikes stay.
		{"text-base-font-bold", ""},                          // four-letter words, a vowel in each
		{"main-repo-test-file-more", ""},                     // five groups
		{"abcd-efgh-ijkl-mnop0", ""},                         // longer
		{"x-vxtq-hbmw-kcpr-lnzd", ""},                        // part of a longer name
		{"4111 1111 1111 1112", ""},                          // Luhn fails
		{"took 1715331600000 ms", ""},                        // a millisecond timestamp
		{"id 1237330987862627581", ""},                       // a snowflake id
		{"0.30000000000000004", ""},                          // float digits
		{"41111111111111111111", ""},                         // a longer digit run
		{"x4111111111111111", ""},                            // inside a word
		{"+4111111111111111", ""},                            // a phone number's shape
		{"3000 3001 3002 3003", ""},                          // ports: Diners 300 is 14 digits
		{"8080 4111 1111 1111 1111", ""},                     // a list of groups of four
		{"4111 1111 1111 1111 1111", ""},                     // likewise
		{"DE89 3704 0044 0532 0130 01", ""},                  // mod 97 fails
		{"GB82WEST1234569876543", ""},                        // one short
		{"de89370400440532013000", ""},                       // lower case
		{"XX89370400440532013000", ""},                       // no such country
		{"0123456789abcdef0123456789abcdef01234567", ""},     // a git hash
		{"0123456789ABCDEF0123456789abcdef01234567", ""},     // hex in both cases
		{"see src/components/HeaderNavigation/Button2x", ""}, // a path
		{"getUserAccountSettingsForOrganization202", ""},     // a name
		{"x_" + awsExample, ""},                              // part of a longer name
		{awsExample + "==", ""},                              // base64 with padding
		{awsExample + "9", ""},                               // 41 characters
		{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""},     // AWS's documentation key
	} {
		want := c.want
		if want == "" {
			want = c.in
		}
		if got := Text(c.in); got != want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, want)
		}
	}
}

// TestAWSSecretThresholds: the class-change and entropy floors keep
// nearly every random key (the clean sessions hold no 40-character run
// that reaches them; see TestShapesClean).
func TestAWSSecretThresholds(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 40))
	const n = 20000
	kept := 0
	for range n {
		v := random(rng, "b64", awsSecretLen)
		if len(awsSecretAt(v, 0, len(v), nil)) == 0 {
			kept++
		}
	}
	if kept > n/200 {
		t.Errorf("%d of %d random keys are not found; want at most 0.5%%", kept, n)
	}
	t.Logf("%d of %d random keys not found", kept, n)
}

func TestInName(t *testing.T) {
	for name, want := range map[string]string{
		"refund-4111-1111-1111-1111":        RuleCard,
		"refund-4111111111111111":           RuleCard,
		"pay-gb82-west-1234-5698-7654-32":   RuleIBAN,
		"de89370400440532013000-wire":       RuleIBAN,
		"version-bump-checklist":            "",
		"cart-rounding-implement-rejection": "",
		"release-2024-05-10":                "",
		"task_1715331600000":                "",
	} {
		if got := InName(name); got != want {
			t.Errorf("InName(%q) = %q, want %q", name, got, want)
		}
	}
}
