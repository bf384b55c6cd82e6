// AssetValidation
