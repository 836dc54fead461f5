// AppStorePayloads
