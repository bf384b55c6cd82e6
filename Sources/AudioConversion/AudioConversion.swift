// AudioConversion
