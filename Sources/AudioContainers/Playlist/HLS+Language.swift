/// BCP 47 language tags as HLS's `LANGUAGE` takes them (RFC 5646): the shape, and the ISO 639-2 codes that
/// have a two-letter ISO 639-1 form, which RFC 5646 requires in their place (an ID3 `TLAN` of `spa` is `es`).
extension HLS {
    /// Whether `tag` has a BCP 47 language tag's shape, as `LANGUAGE` takes it: a primary language subtag of 2 or 3
    /// letters (ISO 639), then subtags of 1 to 8 letters and digits joined by hyphens (`en`, `pt-BR`, `und`,
    /// `zh-Hant-TW`); a word such as `english` is none.
    public static func isLanguageTag(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = subtags.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return subtags.allSatisfy {
            (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// `tag` as `LANGUAGE` should carry it: its primary subtag in lower case and in its two-letter form where ISO
    /// 639-1 has one (`spa` → `es`, `ENG` → `en`, `ger` → `de`); `nil` where it is no language tag.
    public static func languageTag(_ tag: String) -> String? {
        guard isLanguageTag(tag) else { return nil }
        var subtags = tag.split(separator: "-").map(String.init)
        let primary = subtags[0].lowercased()
        subtags[0] = twoLetterLanguageCodes[primary] ?? primary
        return subtags.joined(separator: "-")
    }

    /// ISO 639-2 codes (terminologic and bibliographic) with their ISO 639-1 two-letter forms, as Debian's iso-codes
    /// lists them (`/usr/share/iso-codes/json/iso_639-2.json`: the entries with an `alpha_2`).
    static let twoLetterLanguageCodes: [String: String] = [
        "aar": "aa", "abk": "ab", "afr": "af", "aka": "ak", "alb": "sq", "amh": "am", "ara": "ar", "arg": "an",
        "arm": "hy", "asm": "as", "ava": "av", "ave": "ae", "aym": "ay", "aze": "az", "bak": "ba", "bam": "bm",
        "baq": "eu", "bel": "be", "ben": "bn", "bih": "bh", "bis": "bi", "bod": "bo", "bos": "bs", "bre": "br",
        "bul": "bg", "bur": "my", "cat": "ca", "ces": "cs", "cha": "ch", "che": "ce", "chi": "zh", "chu": "cu",
        "chv": "cv", "cor": "kw", "cos": "co", "cre": "cr", "cym": "cy", "cze": "cs", "dan": "da", "deu": "de",
        "div": "dv", "dut": "nl", "dzo": "dz", "ell": "el", "eng": "en", "epo": "eo", "est": "et", "eus": "eu",
        "ewe": "ee", "fao": "fo", "fas": "fa", "fij": "fj", "fin": "fi", "fra": "fr", "fre": "fr", "fry": "fy",
        "ful": "ff", "geo": "ka", "ger": "de", "gla": "gd", "gle": "ga", "glg": "gl", "glv": "gv", "gre": "el",
        "grn": "gn", "guj": "gu", "hat": "ht", "hau": "ha", "heb": "he", "her": "hz", "hin": "hi", "hmo": "ho",
        "hrv": "hr", "hun": "hu", "hye": "hy", "ibo": "ig", "ice": "is", "ido": "io", "iii": "ii", "iku": "iu",
        "ile": "ie", "ina": "ia", "ind": "id", "ipk": "ik", "isl": "is", "ita": "it", "jav": "jv", "jpn": "ja",
        "kal": "kl", "kan": "kn", "kas": "ks", "kat": "ka", "kau": "kr", "kaz": "kk", "khm": "km", "kik": "ki",
        "kin": "rw", "kir": "ky", "kom": "kv", "kon": "kg", "kor": "ko", "kua": "kj", "kur": "ku", "lao": "lo",
        "lat": "la", "lav": "lv", "lim": "li", "lin": "ln", "lit": "lt", "ltz": "lb", "lub": "lu", "lug": "lg",
        "mac": "mk", "mah": "mh", "mal": "ml", "mao": "mi", "mar": "mr", "may": "ms", "mkd": "mk", "mlg": "mg",
        "mlt": "mt", "mon": "mn", "mri": "mi", "msa": "ms", "mya": "my", "nau": "na", "nav": "nv", "nbl": "nr",
        "nde": "nd", "ndo": "ng", "nep": "ne", "nld": "nl", "nno": "nn", "nob": "nb", "nor": "no", "nya": "ny",
        "oci": "oc", "oji": "oj", "ori": "or", "orm": "om", "oss": "os", "pan": "pa", "per": "fa", "pli": "pi",
        "pol": "pl", "por": "pt", "pus": "ps", "que": "qu", "roh": "rm", "ron": "ro", "rum": "ro", "run": "rn",
        "rus": "ru", "sag": "sg", "san": "sa", "sin": "si", "slk": "sk", "slo": "sk", "slv": "sl", "sme": "se",
        "smo": "sm", "sna": "sn", "snd": "sd", "som": "so", "sot": "st", "spa": "es", "sqi": "sq", "srd": "sc",
        "srp": "sr", "ssw": "ss", "sun": "su", "swa": "sw", "swe": "sv", "tah": "ty", "tam": "ta", "tat": "tt",
        "tel": "te", "tgk": "tg", "tgl": "tl", "tha": "th", "tib": "bo", "tir": "ti", "ton": "to", "tsn": "tn",
        "tso": "ts", "tuk": "tk", "tur": "tr", "twi": "tw", "uig": "ug", "ukr": "uk", "urd": "ur", "uzb": "uz",
        "ven": "ve", "vie": "vi", "vol": "vo", "wel": "cy", "wln": "wa", "wol": "wo", "xho": "xh", "yid": "yi",
        "yor": "yo", "zha": "za", "zho": "zh", "zul": "zu",
    ]
}
