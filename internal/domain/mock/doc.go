// Package mock has fakes of the domain services, for tests of the layers above them (the HTTP
// layer's status codes, forms, rendering) that need no Redis. Each fake is a struct with one
// function field per method, XxxFn, which the method calls, and a flag, XxxInvoked (an
// atomic.Bool: handlers run on the server's goroutines), that the method sets. A method whose XxxFn is nil does nothing and returns zero values: a service
// with nothing in it.
//
//	boards := &mock.Leaderboards{TopFn: func(ctx context.Context, board string, p domain.Period, n int) (domain.BoardTop, error) {
//		return domain.BoardTop{}, domain.Errorf(domain.EUNAVAILABLE, "redis is down")
//	}}
//
// The fakes are written by hand from the interfaces of internal/domain; the compiler checks
// they satisfy them.
package mock
