package redisrepo

import "fmt"

// opError names the operation that failed ("redisrepo.Enqueue: ..."), after turning go-redis
// failures into domain errors (wrap): domain.ErrorCode still finds EUNAVAILABLE, EINVALID...
// through it, and domain.ErrorMessage still gives the message for people.
func opError(op string, err error) error {
	if err = wrap(err); err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
