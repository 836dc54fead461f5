// SubscriberStore
