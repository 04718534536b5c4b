import ImgCore
print("stub")
