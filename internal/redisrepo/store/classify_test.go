package store

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// The classification behind Wrap and WrapWrite, error by error.
func TestClassify(t *testing.T) {
	t.Parallel()
	readTimeout := &net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}
	for _, c := range []struct {
		name        string
		err         error
		read, write string
	}{
		{"dial refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, domain.EUNAVAILABLE, domain.EUNAVAILABLE},
		{"pool timeout", redis.ErrPoolTimeout, domain.EUNAVAILABLE, domain.EUNAVAILABLE},
		{"client closed", redis.ErrClosed, domain.EUNAVAILABLE, domain.EUNAVAILABLE},
		{"loading", loadingErr("LOADING Redis is loading the dataset in memory"), domain.EUNAVAILABLE, domain.EUNAVAILABLE},
		{"read timeout", readTimeout, domain.EUNAVAILABLE, domain.EUNKNOWN},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, domain.EUNAVAILABLE, domain.EUNKNOWN},
		{"eof", io.EOF, domain.EUNAVAILABLE, domain.EUNKNOWN},
		{"deadline", context.DeadlineExceeded, "", domain.EUNKNOWN},
		{"script error", loadingErr("ERR user_script:1: boom"), domain.EINTERNAL, domain.EINTERNAL},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := domain.ErrorCode(Wrap(c.err)); c.read != "" && got != c.read {
				t.Errorf("wrap = %s, want %s", got, c.read)
			}
			if got := domain.ErrorCode(WrapWrite(c.err)); got != c.write {
				t.Errorf("WrapWrite = %s, want %s", got, c.write)
			}
		})
	}
	if err := Wrap(context.DeadlineExceeded); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a read's deadline = %v, want it passed through", err)
	}
	if err := WrapWrite(context.Canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled write = %v, want it passed through", err)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// loadingErr is an error reply as go-redis returns it.
type loadingErr string

func (e loadingErr) Error() string { return string(e) }
func (loadingErr) RedisError()     {}
