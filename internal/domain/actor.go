package domain

import (
	"context"
	"fmt"
)

// Role is what a person or a token may do. Roles are ordered: each may do everything the
// roles below it may.
type Role uint8

const (
	// RoleNone may do nothing that needs a role: an anonymous reader where anonymous reading
	// is allowed, or someone refused.
	RoleNone Role = iota
	// RoleViewer reads every page and API answer, job payloads and limiter client ids
	// included, never a lock holder's token.
	RoleViewer
	// RoleOperator acts on single things: points, jobs, a limiter's try, its own locks.
	RoleOperator
	// RoleAdmin may do everything: resets, seasons, settings, bulk actions, policies,
	// force-release, sources, bans, schedules, tokens and people, the audit trail.
	RoleAdmin
)

var roleNames = [...]string{RoleNone: "none", RoleViewer: "viewer", RoleOperator: "operator", RoleAdmin: "admin"}

func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("Role(%d)", r)
}

// Allows says whether r may do what needs role need.
func (r Role) Allows(need Role) bool { return r >= need }

// ParseRole reads a role's name: viewer, operator or admin ("none" is not a role one can be
// given). Returns EINVALID naming field.
func ParseRole(field, s string) (Role, error) {
	for r := RoleViewer; r <= RoleAdmin; r++ {
		if s == roleNames[r] {
			return r, nil
		}
	}
	return RoleNone, FieldErrorf(field, EINVALID, "%s must be viewer, operator or admin, not %q", field, s)
}

// How a change reached zpulse, as the audit trail records it.
const (
	ViaAPI      = "api"      // the JSON API
	ViaPage     = "page"     // a page's form
	ViaSchedule = "schedule" // a recurring schedule
	ViaSystem   = "system"   // zpulse itself (rollover, reaper, demo)
)

// Actor is who asked for a change: a person's or a token's name ("admin" for the bootstrap
// admin token, "anonymous" when nobody is known), the role they act with, and how the
// request came (ViaAPI, ViaPage, ViaSchedule, ViaSystem). The HTTP layer puts it in the
// request's context (WithActor); services that record who did what read it (ActorOf).
type Actor struct {
	Name string
	Role Role
	Via  string
}

// NoActor is the actor of a context that names none.
var NoActor = Actor{Name: "anonymous", Role: RoleNone}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf is the actor ctx carries, or NoActor.
func ActorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return NoActor
}
