package redisrepo

import "fmt"

// opError names the read that failed ("redisrepo.Queues.View: ..."), after turning go-redis
// failures into domain errors (wrap): domain.ErrorCode still finds EUNAVAILABLE, EINVALID...
// through it, and domain.ErrorMessage still gives the message for people.
func opError(op string, err error) error {
	if err = wrap(err); err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// opWriteError is opError for a write: one whose answer was lost after it was sent is
// EUNKNOWN (it may have been applied), not EUNAVAILABLE (see wrapWrite).
func opWriteError(op string, err error) error {
	if err = wrapWrite(err); err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
