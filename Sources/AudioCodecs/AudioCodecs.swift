// AudioCodecs
