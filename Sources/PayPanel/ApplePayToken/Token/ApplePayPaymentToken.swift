/// The format of a token's `paymentData`.
public enum PaymentTokenVersion: String, Sendable, CaseIterable {
    /// ECDH P-256 + AES-256-GCM.
    case ecV1 = "EC_v1"
    /// RSA-OAEP-wrapped AES-128-GCM key (China UnionPay and a few regions).
    case rsaV1 = "RSA_v1"
}

/// An Apple Pay payment token as received, parsed but not yet verified or decrypted: the
/// `paymentData` of a PKPaymentToken (Apple's Payment Token Format Reference).
public struct ApplePayPaymentToken: Sendable {
    public let version: PaymentTokenVersion
    /// The encrypted payment data: ciphertext followed by the 16-byte GCM tag.
    public let data: [UInt8]
    /// The detached CMS signature (BER), in base64 as received. Decoded only when the token is
    /// verified (`decodedSignature()`): decryption alone does not need its 4 kB.
    public let signatureBase64: String
    /// Whether this came inside a whole PKPaymentToken (for naming fields in messages).
    let isWholePaymentToken: Bool
    public let header: Header
    /// `paymentMethod` of a whole PKPaymentToken (absent for a bare paymentData).
    public let paymentMethod: PaymentMethodInfo?

    /// The `header` object.
    public struct Header: Sendable {
        /// EC_v1: the device's ephemeral P-256 public key (DER SubjectPublicKeyInfo).
        public let ephemeralPublicKey: [UInt8]?
        /// RSA_v1: the AES key, encrypted to the merchant's RSA key.
        public let wrappedKey: [UInt8]?
        /// SHA-256 of the DER SubjectPublicKeyInfo of the merchant certificate it was encrypted for.
        public let publicKeyHash: [UInt8]
        /// The transaction identifier in lower-case hex. Normalised because the signature covers
        /// its bytes, not its spelling: `AB…` and `ab…` are the same transaction for replay checks.
        public let transactionId: String
        /// Hash of the `applicationData` the app set on the request, if any (hex-decoded).
        public let applicationData: [UInt8]?

        /// `publicKeyHash` as it appears in tokens (base64), for messages.
        public var publicKeyHashBase64: String { Base64.encode(publicKeyHash) }

        /// For the device side of this package (the sealer), which builds headers from scratch.
        package init(
            ephemeralPublicKey: [UInt8]?, wrappedKey: [UInt8]?, publicKeyHash: [UInt8], transactionId: String,
            applicationData: [UInt8]?
        ) {
            self.ephemeralPublicKey = ephemeralPublicKey
            self.wrappedKey = wrappedKey
            self.publicKeyHash = publicKeyHash
            self.transactionId = transactionId
            self.applicationData = applicationData
        }
    }

    /// `paymentMethod` from a whole PKPaymentToken: what the wallet shows (never the number).
    public struct PaymentMethodInfo: Sendable, Equatable {
        public let displayName: String?
        public let network: String?
        public let type: String?

        package init(displayName: String?, network: String?, type: String?) {
            self.displayName = displayName
            self.network = network
            self.type = type
        }
    }

    /// Parses a whole PKPaymentToken (`{"paymentData": {…}, "paymentMethod": …}`) or a bare
    /// `paymentData` object.
    public init(json bytes: some Collection<UInt8>) throws(ApplePayTokenError) {
        let document: JSONValue
        do {
            document = try JSONParser().parse(bytes)
        } catch {
            throw .malformedJSON(reason: "line \(error.line), column \(error.column): \(error.reason)")
        }
        guard let root = document.objectValue else {
            throw .malformedToken(field: "document", reason: "is \(document.typeDescription), not an object")
        }
        let paymentData: JSONObject
        if let inner = root["paymentData"] {
            // The Simulator's PKPaymentToken has an empty paymentData (serialised as {} or "").
            let isSimulated = root["transactionIdentifier"]?.stringValue == "Simulated Identifier"
            switch inner {
            case .object(let object) where object.isEmpty: throw .simulatorToken
            case .string(let text) where text.isEmpty: throw .simulatorToken
            case .null: throw .simulatorToken
            case .object(let object): paymentData = object
            default:
                if isSimulated { throw .simulatorToken }
                throw .malformedToken(field: "paymentData", reason: "is \(inner.typeDescription), not an object")
            }
            paymentMethod = root["paymentMethod"]?.objectValue.map {
                PaymentMethodInfo(displayName: $0["displayName"]?.stringValue, network: $0["network"]?.stringValue, type: $0["type"]?.stringValue)
            }
        } else {
            if root.isEmpty { throw .simulatorToken }
            paymentData = root
            paymentMethod = nil
        }

        let reader = TokenFieldReader(object: paymentData, prefix: root["paymentData"] == nil ? "" : "paymentData.")
        let versionText = try reader.string("version")
        guard let version = PaymentTokenVersion(rawValue: versionText) else { throw .unsupportedVersion(versionText) }
        self.version = version
        data = try reader.base64("data")
        guard data.count > AESGCM.tagByteCount else {
            throw .malformedToken(field: reader.path("data"), reason: "is \(data.count) bytes, too short to hold encrypted data and its 16-byte tag")
        }
        signatureBase64 = try reader.string("signature")
        isWholePaymentToken = root["paymentData"] != nil
        guard !signatureBase64.isEmpty else { throw .malformedToken(field: reader.path("signature"), reason: "is empty") }

        let headerReader = try reader.nested("header")
        let publicKeyHash = try headerReader.base64("publicKeyHash")
        guard publicKeyHash.count == SHA256.byteCount else {
            throw .malformedToken(field: headerReader.path("publicKeyHash"), reason: "is \(publicKeyHash.count) bytes instead of a 32-byte SHA-256")
        }
        let transactionId = try headerReader.lowerCaseHex("transactionId")
        let applicationData = try headerReader.optionalHex("applicationData")
        var ephemeralPublicKey: [UInt8]?
        var wrappedKey: [UInt8]?
        switch version {
        case .ecV1: ephemeralPublicKey = try headerReader.base64("ephemeralPublicKey")
        case .rsaV1: wrappedKey = try headerReader.base64("wrappedKey")
        }
        header = Header(
            ephemeralPublicKey: ephemeralPublicKey, wrappedKey: wrappedKey, publicKeyHash: publicKeyHash,
            transactionId: transactionId, applicationData: applicationData)
    }

    package init(version: PaymentTokenVersion, data: [UInt8], signature: [UInt8], header: Header, paymentMethod: PaymentMethodInfo? = nil) {
        self.version = version
        self.data = data
        signatureBase64 = Base64.encode(signature)
        isWholePaymentToken = false
        self.header = header
        self.paymentMethod = paymentMethod
    }

    /// The signature's bytes, or `invalidBase64` naming the field.
    public func decodedSignature() throws(ApplePayTokenError) -> [UInt8] {
        guard let bytes = Base64.decode(signatureBase64) else {
            throw .invalidBase64(field: isWholePaymentToken ? "'paymentData.signature'" : "'signature'")
        }
        return bytes
    }

    /// What Apple signs: ephemeralPublicKey (EC_v1) or wrappedKey (RSA_v1) ‖ data ‖
    /// transactionId ‖ applicationData, the last two hex-decoded.
    package var signedContent: [UInt8] {
        var content = header.ephemeralPublicKey ?? header.wrappedKey ?? []
        content += data
        content += [UInt8](hexString: header.transactionId) ?? []
        content += header.applicationData ?? []
        return content
    }

    /// The `paymentData` object as JSON (what a device sends).
    public var paymentDataJSON: JSONValue {
        var headerObject = JSONObject()
        if let key = header.ephemeralPublicKey { headerObject["ephemeralPublicKey"] = .string(Base64.encode(key)) }
        if let key = header.wrappedKey { headerObject["wrappedKey"] = .string(Base64.encode(key)) }
        headerObject["publicKeyHash"] = .string(header.publicKeyHashBase64)
        headerObject["transactionId"] = .string(header.transactionId)
        if let applicationData = header.applicationData { headerObject["applicationData"] = .string(applicationData.hexString) }
        return [
            "version": .string(version.rawValue),
            "data": .string(Base64.encode(data)),
            "signature": .string(signatureBase64),
            "header": .object(headerObject),
        ]
    }
}

/// Reads the required fields of a token object, naming the field on every failure.
private struct TokenFieldReader {
    let object: JSONObject
    let prefix: String

    func path(_ key: String) -> String { "'\(prefix)\(key)'" }

    func string(_ key: String) throws(ApplePayTokenError) -> String {
        guard let value = object[key] else { throw .malformedToken(field: path(key), reason: "is missing") }
        guard let text = value.stringValue else {
            throw .malformedToken(field: path(key), reason: "is \(value.typeDescription), not a string")
        }
        return text
    }

    func base64(_ key: String) throws(ApplePayTokenError) -> [UInt8] {
        let text = try string(key)
        guard !text.isEmpty else { throw .malformedToken(field: path(key), reason: "is empty") }
        guard let bytes = Base64.decode(text) else { throw .invalidBase64(field: path(key)) }
        return bytes
    }

    func hex(_ key: String) throws(ApplePayTokenError) -> [UInt8] {
        let text = try string(key)
        guard !text.isEmpty, let bytes = [UInt8](hexString: text) else {
            throw .malformedToken(field: path(key), reason: "is not a hexadecimal string")
        }
        return bytes
    }

    /// A hex string, lower-cased (the same bytes always get the same spelling).
    func lowerCaseHex(_ key: String) throws(ApplePayTokenError) -> String {
        let text = try string(key)
        var isLowerCase = true
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "F"): isLowerCase = false
            default: throw .malformedToken(field: path(key), reason: "is not a hexadecimal string")
            }
        }
        guard !text.isEmpty, text.utf8.count % 2 == 0 else {
            throw .malformedToken(field: path(key), reason: "is not a hexadecimal string")
        }
        return isLowerCase ? text : text.lowercased()
    }

    func optionalHex(_ key: String) throws(ApplePayTokenError) -> [UInt8]? {
        guard let value = object[key], value != .null else { return nil }
        return try hex(key)
    }

    func nested(_ key: String) throws(ApplePayTokenError) -> TokenFieldReader {
        guard let value = object[key] else { throw .malformedToken(field: path(key), reason: "is missing") }
        guard let nested = value.objectValue else {
            throw .malformedToken(field: path(key), reason: "is \(value.typeDescription), not an object")
        }
        return TokenFieldReader(object: nested, prefix: "\(prefix)\(key).")
    }
}
