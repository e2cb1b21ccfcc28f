package rosterapi

// MemberObject is the spec's member object as events carry it: the data
// of member.* events ({"member": …}) and the member of message.response.
// CreatedAt is RFC 3339 with nanoseconds, in UTC.
type MemberObject struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Phone     string `json:"phone"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	Status    string `json:"status"`
	IsBlocked bool   `json:"is_blocked"`
	CreatedAt string `json:"created_at"`
}
