package messagingapi

// The data of message.received and message.status (spec §6), exactly
// their fields: what the webhooks module marshals for a receiver, and what
// any module that reads the event log decodes. message.response's data
// (inbound.Response) carries rosterapi.MemberObject, and rosterapi imports
// this package, so it stays with the poll step.

// MemberRef is the member object of message.received.
type MemberRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Role string `json:"role"`
}

// Received is the data of the message.received event.
type Received struct {
	MessageID         string     `json:"message_id"`
	ProviderMessageID string     `json:"provider_message_id"`
	From              string     `json:"from"`
	To                string     `json:"to"`
	Body              string     `json:"body"`
	Keyword           *string    `json:"keyword"`
	GroupID           *string    `json:"group_id"`
	Member            *MemberRef `json:"member"`
	ReceivedAt        string     `json:"received_at"`
}

// StatusPayload is the data of the message.status event.
type StatusPayload struct {
	MessageID         string `json:"message_id"`
	DeliveryID        string `json:"delivery_id"`
	ProviderMessageID string `json:"provider_message_id"`
	To                string `json:"to"`
	Status            string `json:"status"`
	CarrierStatus     string `json:"carrier_status"`
	ErrorCode         string `json:"error_code"`
	ErrorMessage      string `json:"error_message"`
	UpdatedAt         string `json:"updated_at"`
}
