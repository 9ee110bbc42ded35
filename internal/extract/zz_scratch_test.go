package extract

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZ(t *testing.T) {
	for _, s := range strings.Split(os.Getenv("ZZ"), "\n") {
		if s != "" {
			fmt.Printf("%q\n    -> %q\n", s, afterPlan(strings.ReplaceAll(s, `\n`, "\n")))
		}
	}
}
