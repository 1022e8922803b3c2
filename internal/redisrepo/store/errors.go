package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// OpError names the read that failed ("queues.Queues.View: ..."), after turning go-redis
// failures into domain errors (Wrap): domain.ErrorCode still finds EUNAVAILABLE, EINVALID...
// through it, and domain.ErrorMessage still gives the message for people.
func OpError(op string, err error) error {
	if err = Wrap(err); err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// OpWriteError is OpError for a write: one whose answer was lost after it was sent is
// EUNKNOWN (it may have been applied), not EUNAVAILABLE (see WrapWrite).
func OpWriteError(op string, err error) error {
	if err = WrapWrite(err); err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Wrap turns the error of a read into a domain error: a server that refused, could not be
// reached or did not answer becomes EUNAVAILABLE (a read changes nothing, so that is the
// whole truth), and a context that ended passes through unchanged.
func Wrap(err error) error { return classify(err, false) }

// WrapWrite is Wrap for a write, whose outcome may be unknown: when the request may have
// reached Redis but its answer did not come back (a timeout or a connection cut after
// sending), Redis may have applied it, and saying "unavailable, nothing changed" would make a
// retry apply it twice. That is EUNKNOWN.
func WrapWrite(err error) error { return classify(err, true) }

// classify is the one classification of Redis errors behind Wrap and WrapWrite.
func classify(err error, write bool) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return err // the caller went away; nobody reads the answer
	case errors.Is(err, context.DeadlineExceeded) && !write:
		return err
	case WrongType(err) != nil:
		return WrongType(err)
	case notSent(err):
		return &domain.Error{Code: domain.EUNAVAILABLE, Message: "Redis is unavailable: " + err.Error()}
	case maybeSent(err) && write:
		return &domain.Error{Code: domain.EUNKNOWN, Message: "Redis did not answer (" + err.Error() + "), so the change may or may not have been applied. " +
			"Look at the current state (reload the page, or read it through the API) before trying again."}
	case maybeSent(err):
		return &domain.Error{Code: domain.EUNAVAILABLE, Message: "Redis did not answer: " + err.Error()}
	default:
		return fmt.Errorf("redis: %w", err)
	}
}

// notSent reports errors that leave no doubt the command never ran: no connection could be
// had or made, or Redis refused it with an error reply saying it is not serving.
func notSent(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.Is(err, redis.ErrClosed) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, syscall.ECONNREFUSED) ||
		(errors.As(err, &op) && op.Op == "dial") || errors.As(err, &dns) ||
		redis.HasErrorPrefix(err, "LOADING") || redis.HasErrorPrefix(err, "CLUSTERDOWN") || redis.HasErrorPrefix(err, "MASTERDOWN") ||
		redis.HasErrorPrefix(err, "READONLY")
}

// maybeSent reports errors of a connection that failed while a command was on it: written
// (perhaps in part) and then no answer, so Redis may have run it. A context deadline is among
// them: it may have passed before or after the command went out.
func maybeSent(err error) bool {
	var nerr net.Error
	return errors.As(err, &nerr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, context.DeadlineExceeded)
}
