// Package jsonl is devlearn's file layer for line logs: a locked append, a
// tolerant streaming reader and an atomic rewrite. Every append-only file
// devlearn keeps (observations, audit trail, task logs) goes through it.
package jsonl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// Lock takes the exclusive lock file at path, creating its folder. It waits
// until the lock is free or ctx is done. The lock is an OS file lock
// (flock), released by the kernel if the process dies, so a crashed or slow
// holder can never have its lock stolen by age (devflow defect 7).
func Lock(ctx context.Context, path string) (unlock func() error, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	fl := flock.New(path)
	if _, ok := ctx.Deadline(); !ok && ctx.Done() == nil {
		if err := fl.Lock(); err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return fl.Unlock, nil
	}
	locked, err := fl.TryLockContext(ctx, 2*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !locked {
		return nil, fmt.Errorf("lock %s: still held by another devlearn process", path)
	}
	return fl.Unlock, nil
}

// TryLock takes the lock at path only if it is free at once; ok is false
// when another process holds it.
func TryLock(path string) (unlock func() error, ok bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	fl := flock.New(path)
	ok, err = fl.TryLock()
	if err != nil || !ok {
		return nil, false, err
	}
	return fl.Unlock, true, nil
}
