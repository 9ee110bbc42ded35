package hookcmd

// FlagSet is what the flags of the commands both binaries serve are
// declared on: cobra's (pflag) in devlearn, the standard library's in
// devlearn-hook, which must not link cobra. Both have these methods.
type FlagSet interface {
	BoolVar(p *bool, name string, value bool, usage string)
	StringVar(p *string, name string, value string, usage string)
}

// Define declares the flags of hud on fs, once for both binaries.
func (o *HudOptions) Define(fs FlagSet) {
	fs.BoolVar(&o.Stdin, "stdin", false, "read Claude Code's status line JSON on stdin for the session's folder")
	fs.BoolVar(&o.JSON, "json", false, "print the counts as JSON")
}

// Define declares the flags of render-ready on fs, once for both binaries.
func (o *RenderOptions) Define(fs FlagSet) {
	fs.BoolVar(&o.JSON, "json", false, "print what was rendered and skipped as JSON")
	fs.BoolVar(&o.DryRun, "dry-run", false, "write nothing; say what would be written")
	fs.StringVar(&o.Session, "session", "", "the session that triggered this run (for the audit log)")
}

// Define declares the flags of reconcile on fs, once for both binaries.
func (o *ReconcileOptions) Define(fs FlagSet) {
	fs.BoolVar(&o.JSON, "json", false, "print the counts and details as JSON")
	fs.BoolVar(&o.DryRun, "dry-run", false, "find everything, record nothing")
}
