#!/usr/bin/env python3
"""Writes the hand-made example documents of SampleData/examples (see README.md).

Every value below was chosen by hand to tell one small, coherent story per subscriber; this
script only spells out the repetitive wire details (the three date spellings of v1, the
base64url of v2 JWS) so that the files stay consistent. v2 files are unsigned: header
{"alg":"ES256","x5c":[]} and an empty signature, for `subdash import --no-verify`.
It lives outside SampleData so that importing that folder never reads it.
Run it from anywhere: python3 docs/sample-data/generate-examples.py
"""
import base64, json, os
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "SampleData", "examples")
PST = ZoneInfo("America/Los_Angeles")

def ms(text):  # "2024-03-01 10:00" (UTC) -> milliseconds
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc).timestamp() * 1000)

def v1_dates(prefix, millis):
    t = datetime.fromtimestamp(millis / 1000, timezone.utc)
    return {prefix: t.strftime("%Y-%m-%d %H:%M:%S Etc/GMT"), prefix + "_ms": str(millis),
            prefix + "_pst": t.astimezone(PST).strftime("%Y-%m-%d %H:%M:%S America/Los_Angeles")}

def write(path, obj, pretty=True):
    full = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(json.dumps(obj, indent=2 if pretty else None) + "\n")

def b64url(obj):
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).rstrip(b"=").decode()

def jws(payload):
    return b64url({"alg": "ES256", "x5c": []}) + "." + b64url(payload) + "."

# MARK: - v1 ---------------------------------------------------------------------------------

V1_OTID = "1000000900000001"
GROUP = "20667927"

def v1_row(tid, product, purchase, expires, **extra):
    row = {"quantity": "1", "product_id": product, "transaction_id": tid, "original_transaction_id": V1_OTID}
    row.update(v1_dates("purchase_date", ms(purchase)))
    row.update(v1_dates("original_purchase_date", ms("2024-01-05 09:30")))
    row.update(v1_dates("expires_date", ms(expires)))
    row.update({"web_order_line_item_id": "3000009" + tid[-9:], "is_trial_period": "false",
                "is_in_intro_offer_period": "false", "in_app_ownership_type": "PURCHASED",
                "subscription_group_identifier": GROUP})
    for key, value in extra.items():
        if key.endswith("_date"):
            row.update(v1_dates(key, ms(value)))
        else:
            row[key] = value
    return row

MONTHLY, YEARLY = "com.example.pro.monthly", "com.example.pro.yearly"
TRIAL = v1_row("1000000900000001", MONTHLY, "2024-01-05 09:30", "2024-01-12 09:30", is_trial_period="true")
JAN = v1_row("1000000900000101", MONTHLY, "2024-01-12 09:30", "2024-02-12 09:30")
FEB = v1_row("1000000900000102", MONTHLY, "2024-02-12 09:29", "2024-03-12 09:30")
MAR = v1_row("1000000900000103", MONTHLY, "2024-03-12 09:28", "2024-04-12 09:30")

def pending(**fields):
    p = {"auto_renew_product_id": MONTHLY, "auto_renew_status": "1", "original_transaction_id": V1_OTID,
         "product_id": MONTHLY}
    for key, value in fields.items():
        if key.endswith("_date"):
            p.update(v1_dates(key, ms(value)))
        else:
            p[key] = value
    return p

def v1(type_, rows, pend, auto_renew="true", env="PROD", **top):
    doc = {"notification_type": type_, "environment": env, "password": "<shared secret>",
           "bid": "com.example.app", "bvrs": "42", "auto_renew_status": auto_renew,
           "auto_renew_product_id": pend[0]["auto_renew_product_id"] if pend else MONTHLY,
           "original_transaction_id": V1_OTID}
    for key, value in top.items():
        if key.endswith("_date"):
            doc.update(v1_dates(key, ms(value)))
        else:
            doc[key] = value
    doc["unified_receipt"] = {"status": 0, "environment": "Production" if env == "PROD" else env,
                              "latest_receipt": "MIIUGAYJKoZIhvcNAQcCoIIUCTCCFAUCAQExCzAJBgUrDgMCGgUAMIIDuQ…",
                              "latest_receipt_info": rows, "pending_renewal_info": pend}
    return doc

V1 = {
    "INITIAL_BUY": v1("INITIAL_BUY", [TRIAL], [pending()]),
    # Rows deliberately out of order, as Apple sends them.
    "DID_RENEW": v1("DID_RENEW", [JAN, MAR, TRIAL, FEB], [pending()]),
    "INTERACTIVE_RENEWAL": v1("INTERACTIVE_RENEWAL", [
        v1_row("1000000900000201", YEARLY, "2024-05-20 18:00", "2025-05-20 18:00"), MAR, JAN, FEB, TRIAL],
        [pending(auto_renew_product_id=YEARLY, product_id=YEARLY)]),
    "DID_CHANGE_RENEWAL_PREF": v1("DID_CHANGE_RENEWAL_PREF", [MAR, FEB, JAN, TRIAL],
        [pending(auto_renew_product_id="com.example.basic.monthly")]),
    "DID_CHANGE_RENEWAL_STATUS": v1("DID_CHANGE_RENEWAL_STATUS", [FEB, MAR, TRIAL, JAN],
        [pending(auto_renew_status="0")], auto_renew="false",
        auto_renew_status_change_date="2024-03-20 21:15"),
    "DID_FAIL_TO_RENEW": v1("DID_FAIL_TO_RENEW", [MAR, JAN, FEB, TRIAL],
        [pending(is_in_billing_retry_period="1", expiration_intent="2",
                 grace_period_expires_date="2024-04-28 09:30")]),
    "DID_RECOVER": v1("DID_RECOVER", [
        v1_row("1000000900000104", MONTHLY, "2024-04-15 07:02", "2024-05-15 07:02"), MAR, FEB, JAN, TRIAL],
        [pending(is_in_billing_retry_period="0")]),
    "CANCEL": v1("CANCEL", [
        v1_row("1000000900000103", MONTHLY, "2024-03-12 09:28", "2024-04-12 09:30",
               cancellation_date="2024-03-18 12:00", cancellation_reason="1"), FEB, JAN, TRIAL],
        [pending(auto_renew_status="0", expiration_intent="1")], auto_renew="false"),
    "REFUND": v1("REFUND", [
        v1_row("1000000900000103", MONTHLY, "2024-03-12 09:28", "2024-04-12 09:30",
               cancellation_date="2024-03-19 08:45", cancellation_reason="0"), JAN, FEB, TRIAL],
        [pending(auto_renew_status="0")], auto_renew="false"),
    "REVOKE": v1("REVOKE", [
        v1_row("1000000900000103", MONTHLY, "2024-03-12 09:28", "2024-04-12 09:30",
               cancellation_date="2024-03-25 16:20", in_app_ownership_type="FAMILY_SHARED")],
        [pending(auto_renew_status="0")], auto_renew="false"),
    "PRICE_INCREASE_CONSENT": v1("PRICE_INCREASE_CONSENT", [FEB, MAR, JAN, TRIAL],
        [pending(price_consent_status="0")]),
    "CONSUMPTION_REQUEST": v1("CONSUMPTION_REQUEST", [
        v1_row("1000000900000301", "com.example.coins.500", "2024-03-02 14:10", "2024-03-02 14:10",
               original_transaction_id="1000000900000301"),
        MAR, FEB, JAN, TRIAL], [pending()]),
    # Deprecated since March 2021; this body has the legacy top-level fields of the time.
    "RENEWAL": {"notification_type": "RENEWAL", "environment": "PROD", "password": "<shared secret>",
                "bid": "com.example.app", "bvrs": "12", "auto_renew_status": "true",
                "auto_renew_product_id": MONTHLY, "original_transaction_id": int(V1_OTID),
                "latest_receipt": "MIIUGAYJKoZIhvcNAQcCoIIUCTCCFAUCAQExCzAJBgUrDgMCGgUAMIIDuQ…",
                "latest_receipt_info": v1_row("1000000900000050", MONTHLY, "2020-11-14 06:00", "2020-12-14 06:00"),
                "latest_expired_receipt_info": v1_row("1000000900000049", MONTHLY, "2020-10-10 06:00", "2020-11-10 06:00")},
}
# The free trial was redeemed through an offer code (the row is shared by every v1 example).
V1["INITIAL_BUY"]["unified_receipt"]["latest_receipt_info"][0]["offer_code_ref_name"] = "SPRING2024"

for type_, doc in V1.items():
    write(f"v1/{type_}.json", doc)

# MARK: - v2 ---------------------------------------------------------------------------------

V2_OTID = "2000000900000001"
BASE = {"bundleId": "com.example.app", "appAppleId": 1234567890, "bundleVersion": "42", "environment": "Production"}

def txn(tid, purchase, expires, product=MONTHLY, signed=None, **extra):
    t = {"transactionId": tid, "originalTransactionId": V2_OTID, "webOrderLineItemId": "4000009" + tid[-9:],
         "bundleId": "com.example.app", "productId": product, "subscriptionGroupIdentifier": GROUP,
         "purchaseDate": ms(purchase), "originalPurchaseDate": ms("2024-03-01 10:00"), "expiresDate": ms(expires),
         "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
         "signedDate": ms(signed or purchase), "environment": "Production", "transactionReason": "RENEWAL",
         "storefront": "USA", "storefrontId": "143441", "price": 9990, "currency": "USD",
         "appTransactionId": "704289651234567890", "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138"}
    t.update(extra)
    return t

def renewal(signed, **extra):
    r = {"originalTransactionId": V2_OTID, "autoRenewProductId": MONTHLY, "productId": MONTHLY,
         "autoRenewStatus": 1, "signedDate": ms(signed), "environment": "Production",
         "recentSubscriptionStartDate": ms("2024-03-01 10:00"), "renewalDate": ms("2024-06-01 10:00"),
         "renewalPrice": 9990, "currency": "USD", "appTransactionId": "704289651234567890"}
    r.update(extra)
    return r

TRIAL2 = dict(transactionReason="PURCHASE", offerType=1, offerDiscountType="FREE_TRIAL", price=0, offerPeriod="P1W")
T_MAR = txn("2000000900000101", "2024-03-08 10:00", "2024-04-08 10:00")
T_APR = txn("2000000900000102", "2024-04-08 09:58", "2024-05-08 10:00")
T_MAY = txn("2000000900000103", "2024-05-08 09:59", "2024-06-08 10:00")

def v2(name, type_, subtype, signed, uuid_tail, transaction=None, renewal_info=None, status=1, data=True, **extra):
    payload = {"notificationType": type_}
    if subtype:
        payload["subtype"] = subtype
    payload["notificationUUID"] = f"5f0c2d7e-8a41-4c7b-9d3e-{uuid_tail:012d}"
    if data:
        d = dict(BASE)
        if transaction is not None:
            d["signedTransactionInfo"] = transaction
        if renewal_info is not None:
            d["signedRenewalInfo"] = renewal_info
        if status is not None:
            d["status"] = status
        d.update(extra.pop("data_extra", {}))
        payload["data"] = d
    payload.update(extra)
    payload["version"] = "2.0"
    payload["signedDate"] = ms(signed)
    return name, payload

V2 = [
    v2("SUBSCRIBED-INITIAL_BUY", "SUBSCRIBED", "INITIAL_BUY", "2024-03-01 10:00", 1,
       txn("2000000900000001", "2024-03-01 10:00", "2024-03-08 10:00", **TRIAL2), renewal("2024-03-01 10:00")),
    v2("DID_RENEW", "DID_RENEW", None, "2024-03-08 10:01", 2, T_MAR, renewal("2024-03-08 10:01")),
    v2("DID_CHANGE_RENEWAL_STATUS-AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED",
       "2024-03-20 21:15", 3, T_MAR, renewal("2024-03-20 21:15", autoRenewStatus=0)),
    v2("DID_CHANGE_RENEWAL_STATUS-AUTO_RENEW_ENABLED", "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED",
       "2024-03-22 08:40", 4, T_MAR, renewal("2024-03-22 08:40")),
    v2("DID_FAIL_TO_RENEW", "DID_FAIL_TO_RENEW", None, "2024-04-08 10:02", 5, T_MAR,
       renewal("2024-04-08 10:02", isInBillingRetryPeriod=True, expirationIntent=2), status=3),
    v2("DID_FAIL_TO_RENEW-GRACE_PERIOD", "DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2024-04-08 10:02", 6, T_MAR,
       renewal("2024-04-08 10:02", isInBillingRetryPeriod=True, expirationIntent=2,
               gracePeriodExpiresDate=ms("2024-04-24 10:00")), status=4),
    v2("GRACE_PERIOD_EXPIRED", "GRACE_PERIOD_EXPIRED", None, "2024-04-24 10:00", 7, T_MAR,
       renewal("2024-04-24 10:00", isInBillingRetryPeriod=True, expirationIntent=2), status=3),
    v2("DID_RENEW-BILLING_RECOVERY", "DID_RENEW", "BILLING_RECOVERY", "2024-04-08 09:58", 8, T_APR,
       renewal("2024-04-08 09:58", isInBillingRetryPeriod=False)),
    v2("EXPIRED-VOLUNTARY", "EXPIRED", "VOLUNTARY", "2024-06-08 10:00", 9, T_MAY,
       renewal("2024-06-08 10:00", autoRenewStatus=0, expirationIntent=1), status=2),
    v2("EXPIRED-BILLING_RETRY", "EXPIRED", "BILLING_RETRY", "2024-08-07 10:00", 10, T_MAY,
       renewal("2024-08-07 10:00", autoRenewStatus=0, expirationIntent=2, isInBillingRetryPeriod=False), status=2),
    v2("EXPIRED-PRICE_INCREASE", "EXPIRED", "PRICE_INCREASE", "2024-06-08 10:00", 11, T_MAY,
       renewal("2024-06-08 10:00", autoRenewStatus=0, expirationIntent=3, priceIncreaseStatus=0), status=2),
    v2("EXPIRED-PRODUCT_NOT_FOR_SALE", "EXPIRED", "PRODUCT_NOT_FOR_SALE", "2024-06-08 10:00", 12, T_MAY,
       renewal("2024-06-08 10:00", autoRenewStatus=0, expirationIntent=4), status=2),
    v2("EXPIRED", "EXPIRED", None, "2024-06-08 10:00", 13, T_MAY,
       renewal("2024-06-08 10:00", autoRenewStatus=0, expirationIntent=5), status=2),
    v2("DID_CHANGE_RENEWAL_PREF-UPGRADE", "DID_CHANGE_RENEWAL_PREF", "UPGRADE", "2024-05-20 18:00", 14,
       txn("2000000900000201", "2024-05-20 18:00", "2025-05-20 18:00", product=YEARLY, price=99990,
           transactionReason="PURCHASE"),
       renewal("2024-05-20 18:00", autoRenewProductId=YEARLY, productId=YEARLY, renewalPrice=99990)),
    v2("DID_CHANGE_RENEWAL_PREF-DOWNGRADE", "DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", "2024-05-12 11:30", 15, T_MAY,
       renewal("2024-05-12 11:30", autoRenewProductId="com.example.basic.monthly", renewalPrice=4990)),
    v2("DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_PREF", None, "2024-05-14 11:30", 16, T_MAY,
       renewal("2024-05-14 11:30")),
    v2("OFFER_REDEEMED", "OFFER_REDEEMED", None, "2024-05-08 09:59", 17,
       txn("2000000900000103", "2024-05-08 09:59", "2024-06-08 10:00", offerType=2, offerIdentifier="retention.50off",
           offerDiscountType="PAY_AS_YOU_GO", price=4990, offerPeriod="P1M"),
       renewal("2024-05-08 09:59")),
    v2("OFFER_REDEEMED-UPGRADE", "OFFER_REDEEMED", "UPGRADE", "2024-05-20 18:00", 18,
       txn("2000000900000202", "2024-05-20 18:00", "2025-05-20 18:00", product=YEARLY, offerType=3,
           offerIdentifier="YEARLY-SAVE", offerDiscountType="PAY_UP_FRONT", price=69990, offerPeriod="P1Y",
           transactionReason="PURCHASE"),
       renewal("2024-05-20 18:00", autoRenewProductId=YEARLY, productId=YEARLY)),
    v2("OFFER_REDEEMED-DOWNGRADE", "OFFER_REDEEMED", "DOWNGRADE", "2024-05-12 11:30", 19, T_MAY,
       renewal("2024-05-12 11:30", autoRenewProductId="com.example.basic.monthly", offerType=2,
               offerIdentifier="basic.first.month", offerDiscountType="PAY_AS_YOU_GO")),
    v2("PRICE_INCREASE-PENDING", "PRICE_INCREASE", "PENDING", "2024-05-15 16:00", 20, T_MAY,
       renewal("2024-05-15 16:00", priceIncreaseStatus=0, renewalPrice=12990)),
    v2("PRICE_INCREASE-ACCEPTED", "PRICE_INCREASE", "ACCEPTED", "2024-05-18 07:45", 21, T_MAY,
       renewal("2024-05-18 07:45", priceIncreaseStatus=1, renewalPrice=12990)),
    v2("REFUND", "REFUND", None, "2024-05-21 13:05", 22,
       txn("2000000900000103", "2024-05-08 09:59", "2024-06-08 10:00", signed="2024-05-21 13:05",
           revocationDate=ms("2024-05-21 13:00"), revocationReason=0, revocationType="REFUND_FULL",
           revocationPercentage=100000), renewal("2024-05-21 13:05", autoRenewStatus=0), status=5),
    v2("REFUND_DECLINED", "REFUND_DECLINED", None, "2024-05-21 13:05", 23, T_MAY, renewal("2024-05-21 13:05")),
    v2("REFUND_REVERSED", "REFUND_REVERSED", None, "2024-06-02 09:00", 24, T_MAY, renewal("2024-06-02 09:00")),
    v2("CONSUMPTION_REQUEST", "CONSUMPTION_REQUEST", None, "2024-05-19 22:10", 25, T_MAY, renewal("2024-05-19 22:10"),
       status=None, data_extra={"consumptionRequestReason": "UNSATISFIED_WITH_PURCHASE"}),
    v2("RENEWAL_EXTENDED", "RENEWAL_EXTENDED", None, "2024-05-25 12:00", 26,
       txn("2000000900000103", "2024-05-08 09:59", "2024-06-15 10:00", signed="2024-05-25 12:00"),
       renewal("2024-05-25 12:00", renewalDate=ms("2024-06-15 10:00"))),
    v2("RENEWAL_EXTENSION-SUMMARY", "RENEWAL_EXTENSION", "SUMMARY", "2024-05-25 12:30", 27, data=False,
       summary={"environment": "Production", "appAppleId": 1234567890, "bundleId": "com.example.app",
                "productId": MONTHLY, "requestIdentifier": "e0b4c1a2-5d6f-4a1b-8c9d-0e1f2a3b4c5d",
                "storefrontCountryCodes": ["USA", "CAN", "MEX"], "succeededCount": 4210, "failedCount": 3}),
    v2("RENEWAL_EXTENSION-FAILURE", "RENEWAL_EXTENSION", "FAILURE", "2024-05-25 12:30", 28, T_MAY,
       renewal("2024-05-25 12:30")),
    v2("REVOKE", "REVOKE", None, "2024-05-27 17:20", 29,
       txn("2000000900000103", "2024-05-08 09:59", "2024-06-08 10:00", signed="2024-05-27 17:20",
           inAppOwnershipType="FAMILY_SHARED", revocationDate=ms("2024-05-27 17:20"), revocationType="FAMILY_REVOKE"),
       renewal("2024-05-27 17:20", autoRenewStatus=0), status=5),
    v2("ONE_TIME_CHARGE", "ONE_TIME_CHARGE", None, "2024-04-02 14:10", 30,
       {"transactionId": "2000000900000301", "originalTransactionId": "2000000900000301",
        "bundleId": "com.example.app", "productId": "com.example.coins.500", "purchaseDate": ms("2024-04-02 14:10"),
        "originalPurchaseDate": ms("2024-04-02 14:10"), "quantity": 1, "type": "Consumable",
        "inAppOwnershipType": "PURCHASED", "signedDate": ms("2024-04-02 14:10"), "environment": "Production",
        "transactionReason": "PURCHASE", "storefront": "USA", "storefrontId": "143441", "price": 4990,
        "currency": "USD"}, None, status=None),
    v2("TEST", "TEST", None, "2024-02-29 08:00", 31, status=None),
    v2("EXTERNAL_PURCHASE_TOKEN-UNREPORTED", "EXTERNAL_PURCHASE_TOKEN", "UNREPORTED", "2024-06-01 00:00", 32,
       data=False, externalPurchaseToken={"externalPurchaseId": "b2d9c1f0-7e6a-4c3b-9a8d-1f2e3d4c5b6a",
                                          "tokenCreationDate": ms("2024-05-01 12:00"), "appAppleId": 1234567890,
                                          "bundleId": "com.example.app"}),
    v2("EXTERNAL_PURCHASE_TOKEN-CREATED", "EXTERNAL_PURCHASE_TOKEN", "CREATED", "2024-05-01 12:00", 33,
       data=False, externalPurchaseToken={"externalPurchaseId": "SANDBOX_5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d",
                                          "tokenCreationDate": ms("2024-05-01 12:00"), "appAppleId": 1234567890,
                                          "bundleId": "com.example.app"}),
    v2("EXTERNAL_PURCHASE_TOKEN-ACTIVE_TOKEN_REMINDER", "EXTERNAL_PURCHASE_TOKEN", "ACTIVE_TOKEN_REMINDER",
       "2024-06-01 12:00", 34, data=False,
       externalPurchaseToken={"externalPurchaseId": "b2d9c1f0-7e6a-4c3b-9a8d-1f2e3d4c5b6a",
                              "tokenCreationDate": ms("2024-05-01 12:00"), "appAppleId": 1234567890,
                              "bundleId": "com.example.app"}),
    v2("METADATA_UPDATE", "METADATA_UPDATE", None, "2024-05-30 10:00", 35, T_MAY, renewal("2024-05-30 10:00")),
    v2("MIGRATION", "MIGRATION", None, "2024-05-30 10:05", 36, T_MAY, renewal("2024-05-30 10:05")),
    v2("PRICE_CHANGE", "PRICE_CHANGE", None, "2024-05-30 10:10", 37, T_MAY,
       renewal("2024-05-30 10:10", renewalPrice=8990)),
    v2("RESCIND_CONSENT", "RESCIND_CONSENT", None, "2024-06-03 09:00", 38, data=False,
       appData={"appAppleId": 1234567890, "bundleId": "com.example.app", "environment": "Production",
                "signedAppTransactionInfo": "eyJhbGciOiJFUzI1NiJ9.eyJhcHBUcmFuc2FjdGlvbklkIjoiNzA0Mjg5NjUxMjM0NTY3ODkwIn0."}),
    v2("SUBSCRIBED-RESUBSCRIBE", "SUBSCRIBED", "RESUBSCRIBE", "2024-07-01 12:00", 39,
       txn("2000000900000401", "2024-07-01 12:00", "2024-08-01 12:00", transactionReason="PURCHASE",
           offerType=4, offerIdentifier="winback.half", offerDiscountType="PAY_AS_YOU_GO", price=4990),
       renewal("2024-07-01 12:00")),
]
# Xcode StoreKit testing: fractional milliseconds on every date.
name, p = v2("SUBSCRIBED-INITIAL_BUY-xcode", "SUBSCRIBED", "INITIAL_BUY", "2024-03-01 10:00", 40,
             txn("0", "2024-03-01 10:00", "2024-04-01 10:00", environment="Xcode"),
             renewal("2024-03-01 10:00", environment="Xcode"))
p["data"]["environment"] = "Xcode"
t = p["data"]["signedTransactionInfo"]
t.update(originalTransactionId="0", purchaseDate=t["purchaseDate"] + 0.7297, expiresDate=t["expiresDate"] + 0.7297,
         signedDate=t["signedDate"] + 6.485)
p["signedDate"] = p["signedDate"] + 7.25
p["data"]["signedRenewalInfo"]["originalTransactionId"] = "0"
V2.append((name, p))

def signed_form(payload):
    p = json.loads(json.dumps(payload))
    d = p.get("data")
    if d:
        for key in ("signedTransactionInfo", "signedRenewalInfo"):
            if key in d:
                d[key] = jws(d[key])
    return {"signedPayload": jws(p)}

for name, payload in V2:
    write(f"v2/{name}.decoded.json", payload)
    write(f"v2/{name}.json", signed_form(payload), pretty=False)

# MARK: - App Store Server API and verifyReceipt ---------------------------------------------

write("api/verifyReceipt.json", {
    "status": 0, "environment": "Production",
    "receipt": {"receipt_type": "Production", "adam_id": 1234567890, "app_item_id": 1234567890,
                "bundle_id": "com.example.app", "application_version": "42",
                **v1_dates("request_date", ms("2024-04-01 08:00")),
                "in_app": [JAN, TRIAL]},
    "latest_receipt_info": [FEB, MAR, TRIAL, JAN],
    "latest_receipt": "MIIUGAYJKoZIhvcNAQcCoIIUCTCCFAUCAQExCzAJBgUrDgMCGgUAMIIDuQ…",
    "pending_renewal_info": [pending()],
})
write("api/StatusResponse.json", {
    "environment": "Production", "bundleId": "com.example.app", "appAppleId": 1234567890,
    "data": [{"subscriptionGroupIdentifier": GROUP, "lastTransactions": [
        {"status": 1, "originalTransactionId": V2_OTID, "signedTransactionInfo": jws(T_MAY),
         "signedRenewalInfo": jws(renewal("2024-05-30 10:00"))}]}]})
write("api/TransactionHistory.json", {
    "revision": "1714995600000_2000000900000103", "bundleId": "com.example.app", "appAppleId": 1234567890,
    "environment": "Production", "hasMore": False,
    "signedTransactions": [jws(t) for t in (T_MAR, T_APR, T_MAY)]})
write("api/NotificationHistory.json", {
    "hasMore": False, "paginationToken": "45380b2a-1ba8-4c4b-a4c6-8d1f4bf2c35e",
    "notificationHistory": [
        {"sendAttempts": [{"attemptDate": V2[1][1]["signedDate"] + 1000, "sendAttemptResult": "SUCCESS"}],
         "signedPayload": signed_form(V2[1][1])["signedPayload"]},
        {"sendAttempts": [{"attemptDate": V2[2][1]["signedDate"] + 1000, "sendAttemptResult": "TIMED_OUT"},
                          {"attemptDate": V2[2][1]["signedDate"] + 3600000, "sendAttemptResult": "SUCCESS"}],
         "signedPayload": signed_form(V2[2][1])["signedPayload"]}]})
