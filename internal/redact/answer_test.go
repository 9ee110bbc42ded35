package redact

import "testing"

// A password typed in answer to the agent has no name before it; the
// question it answers says what it is.
func TestAnswer(t *testing.T) {
	asked := "A few questions: 1. Hostname? 2. What password should the user have? 3. Timezone?"
	for _, c := range []struct{ asked, reply, want string }{
		{asked, "1. Skip for now 2. West11berg1! 3. 12 hour", "1. Skip for now 2. " + PasswordPlaceholder + " 3. 12 hour"},
		{asked, "use 'p@ssw0rd' for now", "use '" + PasswordPlaceholder + "' for now"},
		{"¿Qué contraseña uso?", "Hunter2024", PasswordPlaceholder},
		// words, numbers, names, paths and addresses are no passwords
		{asked, "use the one in ~/.secrets/Vault2024.txt, not Eiros or 2026-03-01", "use the one in ~/.secrets/Vault2024.txt, not Eiros or 2026-03-01"},
		{asked, "mail me at someone@example.com", "mail me at someone@example.com"},
		{"Qual senha uso no banco?", "Adicionar README.md e docker-compose.yml com passo a passo", "Adicionar README.md e docker-compose.yml com passo a passo"},
		{asked, "already " + Placeholder("github-pat"), "already " + Placeholder("github-pat")},
		{"Set it up. Enter the new password:", "Hunter2024", PasswordPlaceholder},
		{"Qual é a sua senha? Vou usá-la no login.", "Hunter2024", PasswordPlaceholder},
		// not asked for a password: nothing to read the words as
		{"What hostname?", "West11berg1!", "West11berg1!"},
		// a report that names the password it set asks for none: the
		// reply's test cases are no passwords
		{"Deployed.\n- **Email:** admin@teste.com\n- **Senha:** admin123\nThe system is online.", "CT-AG-04: Validações (datas no futuro)", "CT-AG-04: Validações (datas no futuro)"},
	} {
		if got := Answer(c.asked, c.reply); got != c.want {
			t.Errorf("Answer(%q, %q) = %q, want %q", c.asked, c.reply, got, c.want)
		}
	}
	if !Redacts(Text) || Redacts(func(s string) string { return s }) {
		t.Error("Redacts: Text redacts, the identity does not")
	}
}

// A word is read without the quotation marks around it, whichever the
// language uses: German „…“ and French «…» quote words, not passwords.
func TestHoldsPasswordShapedQuoted(t *testing.T) {
	for s, want := range map[string]bool{
		"Benutzer korrigierte: „Generierte Dateien nie von Hand ändern“.": false,
		"« Ne jamais pousser sur main »":                                  false,
		"the login is admin / Tr0ub4dor&3x":                               true,
		"„Tr0ub4dor&3x“":                                                  true,
	} {
		if got := HoldsPasswordShaped(s); got != want {
			t.Errorf("HoldsPasswordShaped(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestNamesPassword(t *testing.T) {
	for s, want := range map[string]bool{
		"User provided the Password for the admin": true,
		"a senha do banco é outra":                 true,
		"パスワードを変えた":                                true,
		"the build failed twice":                   false,
	} {
		if got := NamesPassword(s); got != want {
			t.Errorf("NamesPassword(%q) = %v, want %v", s, got, want)
		}
	}
}
