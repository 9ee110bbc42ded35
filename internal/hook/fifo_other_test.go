//go:build !unix

package hook

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
